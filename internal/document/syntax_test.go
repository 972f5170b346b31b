package document

import "testing"

// Each slip people make editing a state file is named on one line, at the
// line of the slip, in words about the file rather than the grammar.
func TestSyntaxError(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"deeper than a key with a value", "a:\n  b: 1\n    c: 2\n",
			`f.yaml:3:5: "c: 2" is indented more than "b: 1" on line 2, which already has a value: align it with the keys above (2 spaces), or nest it under a key that has no value`},
		{"first key one space in", "a:\n b: 1\n  c: 2\n",
			`f.yaml:3:3: "c: 2" is indented more than "b: 1" on line 2, which already has a value: align it with the keys above (1 space), or nest it under a key that has no value`},
		{"between two levels", "a:\n  b: 1\n c: 2\n",
			`f.yaml:3:2: "c: 2" is indented 1 space, which lines up with no key above it (the keys there are at 0 or 2 spaces)`},
		{"missing colon", "a:\n  b: 1\n  c 2\n",
			`f.yaml:3:3: "c 2" is not a 'key: value' pair: a ':' is missing after "c"`},
		{"missing colon before the next key", "a:\n  b 1\n  c: 2\n",
			`f.yaml:2:3: "b 1" is not a 'key: value' pair: a ':' is missing after "b"`},
		{"tab", "a:\n\tb: 1\n", `f.yaml:2:1: a tab in the indentation: YAML indents with spaces only`},
		{"key among items", "a:\n  - 1\n  b: 2\n", `f.yaml:3:3: "b: 2" is a key among list items ('- '): indent it under its item, or start it with '- '`},
		{"item among keys", "a: x\n- b\n", `f.yaml:2:1: "- b" is a list item among keys at the same indentation: indent it under the key it belongs to`},
		{"colon in a value", "a: b: c\n", `f.yaml:1:5: the value "b: c" holds ': ', which YAML reads as another key: quote the value`},
		{"text after a quote", "a: 'x'y\n", `f.yaml:1:4: text after the closing quote of 'x': quote the whole value`},
		{"comment then deeper key", "key: value # ok\n  other: 2\n",
			`f.yaml:2:3: "other: 2" is indented more than "key: value # ok" on line 1, which already has a value: align it with the keys above (0 spaces), or nest it under a key that has no value`},
		{"unclosed flow", "a: {b: 1\nc: 2\n", `f.yaml:2:1: a '{' is not closed: a ',' or '}' is missing`},
		{"unclosed string", "a: \"x\nb: 1\n", `f.yaml:1:4: a double-quoted string is not closed`},
		{"reserved", "a: @x\n", `f.yaml:1:4: a value cannot start with '@': quote it`},
		{"slip inside an item's mapping", "l:\n  - name: a\n    path: b\n   x: 1\n",
			`f.yaml:4:4: "x: 1" is indented 3 spaces, which lines up with no key above it (the keys there are at 0, 2 or 4 spaces)`},
	}
	for _, tt := range tests {
		_, err := Parse("f.yaml", []byte(tt.in))
		if err == nil {
			t.Errorf("%s: Parse(%q) = nil error", tt.name, tt.in)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%s: Parse(%q)\n got %s\nwant %s", tt.name, tt.in, err, tt.want)
		}
	}
}

// Valid files the scanner must follow without finding a slip: it only
// speaks after the parser failed, but it must not blame a good line.
func TestScanLinesValid(t *testing.T) {
	for _, in := range []string{
		"a:\n- x\n- y\nb: 1\n",
		"a:\n  - name: x\n    path: y\n  - name: z\nb:\n  c: |\n    text: here\n      more\n  d: 2\n",
		"url: http://x.y:80/z\ntime: 10:30\nq: \"a: b\"\ns: 'it''s'\nf: {a: 1, b: [1, 2]}\n",
		"a: plain text\n  going on\nb: 1\n",
		"a:\n- - a\n  - b\n- c\n",
		"\"quoted key\": 1\nk: v # c: d\n",
	} {
		if _, err := Parse("f.yaml", []byte(in)); err != nil {
			t.Errorf("Parse(%q) = %v", in, err)
		}
		if s, ok := scanLines([]byte(in)); ok {
			t.Errorf("scanLines(%q) found %+v in a valid file", in, s)
		}
	}
}
