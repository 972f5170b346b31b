from absl import app, flags
FLAGS = flags.FLAGS
flags.DEFINE_string("config", None, "config file")
flags.DEFINE_integer("epochs", 10, "epochs", short_name="e")
flags.DEFINE_float("learning_rate", 0.1, "learning rate")
flags.DEFINE_bool("cuda", True, "use cuda")
flags.DEFINE_enum("algo", "ppo", ["ppo", "sac"], "algorithm")
flags.DEFINE_list("tags", [], "tags")
def main(argv):
    pass
if __name__ == "__main__":
    app.run(main)
