import click
@click.command()
@click.option("--config", type=click.Path(), required=True, help="config file")
@click.option("-e", "--epochs", default=10, show_default=True)
@click.option("--lr", "--learning-rate", type=float)
@click.option("--cuda/--no-cuda", default=True)
@click.option("--shout", is_flag=True, flag_value=True)
@click.option("--name", multiple=True, help="a long help text that goes on and on for a while so that click wraps it onto another line of its own")
@click.argument("out", required=False)
def main(config, epochs, lr, cuda, shout, name, out):
    pass
main()
