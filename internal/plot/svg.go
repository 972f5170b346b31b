package plot

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// A Chart is one tag's curves, grouped by experiment.
type Chart struct {
	Title  string
	Tag    string
	Groups []Group // aggregated (see Aggregate)
}

// Chart geometry, in SVG user units.
const (
	width   = 640
	height  = 320
	padL    = 64
	padR    = 16
	padT    = 28
	padB    = 36
	legendH = 16
	noteH   = 16
)

// colour is the i-th experiment's colour; the baseline is drawn in black.
func colour(i int) string {
	palette := [...]string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}
	return palette[i%len(palette)]
}

// Colours gives each group its colour: black for the baseline, the
// palette in order for the others.
func Colours(groups []Group) []string {
	out := make([]string, len(groups))
	n := 0
	for i, g := range groups {
		if g.Baseline {
			out[i] = "#000"
			continue
		}
		out[i] = colour(n)
		n++
	}
	return out
}

// SVG draws the chart: per experiment the mean across seeds with its 95%
// confidence band and each seed as a faint line; a metric logged once per
// run as dots per experiment with the mean and its interval. The same
// chart always gives the same bytes: numbers are printed with a fixed
// precision and groups keep their given order.
func SVG(c Chart) []byte {
	var b bytes.Buffer
	h := height + legendH*len(c.Groups) + noteH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-tag="%s" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n",
		esc(c.Tag), width, h, width, h)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", esc(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", padL, esc(c.Title))
	pw, ph := float64(width-padL-padR), float64(height-padT-padB)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="%s" fill="none" stroke="#999"/>`+"\n", padL, padT, num(pw), num(ph))
	colours := Colours(c.Groups)
	note := "mean of the seeds, shaded: 95% CI of the mean (Student's t); seeds aligned on step by linear interpolation"
	if Once(c.Groups) {
		dots(&b, c, colours, pw, ph)
		note = "one value per run (dots); bar: mean, whiskers: 95% CI of the mean (Student's t)"
	} else {
		curves(&b, c, colours, pw, ph)
	}
	for i, g := range c.Groups {
		ly := height + legendH*i + 4
		label := g.Experiment
		if g.Baseline && g.Experiment != "baseline" {
			label += " (baseline)"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="24" height="8" fill="%s" fill-opacity="0.25"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`,
			padL, ly-4, colours[i], padL, ly, padL+24, ly, colours[i])
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s, %s</text>`+"\n", padL+30, ly+4, esc(label), seedsText(len(g.Seeds)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666" font-size="10">%s</text>`+"\n", padL, h-4, esc(note))
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func seedsText(n int) string {
	if n == 1 {
		return "1 seed"
	}
	return strconv.Itoa(n) + " seeds"
}

// curves draws each group's band, seeds and mean.
func curves(b *bytes.Buffer, c Chart, colours []string, pw, ph float64) {
	x0, x1, y0, y1, ok := bounds(c.Groups)
	if !ok {
		fmt.Fprintf(b, `<text x="%d" y="%d" fill="#666">no points logged for this tag yet</text>`+"\n", padL+8, padT+20)
		return
	}
	axes(b, strconv.FormatInt(x0, 10), strconv.FormatInt(x1, 10), "step", y0, y1, pw)
	sx := func(s int64) float64 {
		if x1 == x0 {
			return padL + pw/2
		}
		return padL + float64(s-x0)/float64(x1-x0)*pw
	}
	sy := scaleY(y0, y1, ph)
	for i, g := range c.Groups {
		col := colours[i]
		bd := g.Band
		if n := len(bd.Lo); n > 0 {
			var pts []string
			for j, s := range bd.Steps {
				pts = append(pts, num(sx(s))+","+num(sy(bd.Hi[j])))
			}
			for j := n - 1; j >= 0; j-- {
				pts = append(pts, num(sx(bd.Steps[j]))+","+num(sy(bd.Lo[j])))
			}
			fmt.Fprintf(b, `<polygon class="band" data-experiment="%s" data-step="%d" data-lo="%s" data-hi="%s" fill="%s" fill-opacity="0.2" stroke="none" points="%s"/>`+"\n",
				esc(g.Experiment), bd.Steps[n-1], full(bd.Lo[n-1]), full(bd.Hi[n-1]), col, strings.Join(pts, " "))
		}
		for _, s := range g.Seeds {
			var pts []string
			for _, p := range s.Points {
				pts = append(pts, num(sx(p.Step))+","+num(sy(p.Value)))
			}
			fmt.Fprintf(b, `<polyline class="seed" data-run="%s" data-points="%d" fill="none" stroke="%s" stroke-opacity="0.35" stroke-width="0.75" points="%s"/>`+"\n",
				esc(s.Run), len(s.Points), col, strings.Join(pts, " "))
		}
		if len(bd.Steps) == 0 {
			continue
		}
		var pts []string
		for j, s := range bd.Steps {
			pts = append(pts, num(sx(s))+","+num(sy(bd.Mean[j])))
		}
		fmt.Fprintf(b, `<polyline class="mean" data-experiment="%s" data-n="%d" data-points="%d" fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n",
			esc(g.Experiment), bd.N, len(bd.Steps), col, strings.Join(pts, " "))
		if len(bd.Steps) < 3 {
			for j, s := range bd.Steps {
				fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(sx(s)), num(sy(bd.Mean[j])), col)
			}
		}
	}
}

// dots draws one column per experiment: a dot per run, the mean as a bar
// and its 95% interval as whiskers.
func dots(b *bytes.Buffer, c Chart, colours []string, pw, ph float64) {
	y0, y1, first := 0.0, 0.0, true
	widen := func(v float64) {
		if first {
			y0, y1, first = v, v, false
		}
		y0, y1 = math.Min(y0, v), math.Max(y1, v)
	}
	for _, g := range c.Groups {
		for _, s := range g.Seeds {
			for _, p := range s.Points {
				widen(p.Value)
			}
		}
		if g.Dots != nil && g.Dots.CI95 != nil {
			widen(g.Dots.CI95[0])
			widen(g.Dots.CI95[1])
		}
	}
	axes(b, "", "", "experiment", y0, y1, pw)
	sy := scaleY(y0, y1, ph)
	col := pw / float64(len(c.Groups))
	for i, g := range c.Groups {
		x := padL + col*(float64(i)+0.5)
		fmt.Fprintf(b, `<text x="%s" y="%d" text-anchor="middle">%s</text>`+"\n", num(x), height-padB+14, esc(g.Experiment))
		if g.Dots == nil {
			continue
		}
		d := g.Dots
		fmt.Fprintf(b, `<g class="dots" data-experiment="%s" data-n="%d" data-mean="%s"`, esc(g.Experiment), d.N, full(d.Mean))
		if d.CI95 != nil {
			fmt.Fprintf(b, ` data-lo="%s" data-hi="%s"`, full(d.CI95[0]), full(d.CI95[1]))
		}
		b.WriteString(">\n")
		for j, s := range g.Seeds {
			for _, p := range s.Points {
				// Seeds side by side around the column's centre.
				dx := (float64(j) - float64(len(g.Seeds)-1)/2) * 6
				fmt.Fprintf(b, `<circle class="seed" data-run="%s" cx="%s" cy="%s" r="3.5" fill="%s" fill-opacity="0.6"/>`+"\n", esc(s.Run), num(x+dx), num(sy(p.Value)), colours[i])
			}
		}
		fmt.Fprintf(b, `<line class="mean" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2.5"/>`+"\n", num(x-14), num(sy(d.Mean)), num(x+14), num(sy(d.Mean)), colours[i])
		if d.CI95 != nil {
			fmt.Fprintf(b, `<line class="ci" x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.5"/>`+"\n", num(x), num(sy(d.CI95[0])), num(x), num(sy(d.CI95[1])), colours[i])
		}
		b.WriteString("</g>\n")
	}
}

// axes labels the ends of each range.
func axes(b *bytes.Buffer, xlo, xhi, xname string, y0, y1, pw float64) {
	if xlo != "" {
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="start">%s</text>`+"\n", padL, height-padB+14, xlo)
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", width-padR, height-padB+14, xhi)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" fill="#666">%s</text>`+"\n", padL+int(pw/2), height-padB+28, xname)
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", padL-4, padT+10, label(y1))
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", padL-4, height-padB, label(y0))
}

func scaleY(y0, y1, ph float64) func(float64) float64 {
	return func(v float64) float64 {
		if y1 == y0 {
			return padT + ph/2
		}
		return padT + (y1-v)/(y1-y0)*ph
	}
}

// bounds is the step and value range of every point, mean and band.
func bounds(groups []Group) (x0, x1 int64, y0, y1 float64, ok bool) {
	add := func(s int64, v float64) {
		if !ok {
			x0, x1, y0, y1, ok = s, s, v, v, true
			return
		}
		x0, x1 = min(x0, s), max(x1, s)
		y0, y1 = math.Min(y0, v), math.Max(y1, v)
	}
	for _, g := range groups {
		for _, s := range g.Seeds {
			for _, p := range s.Points {
				add(p.Step, p.Value)
			}
		}
		for j := range g.Band.Lo {
			add(g.Band.Steps[j], g.Band.Lo[j])
			add(g.Band.Steps[j], g.Band.Hi[j])
		}
	}
	return x0, x1, y0, y1, ok
}

// full prints a number exactly, for data attributes that tests and tools
// compare with the ledger.
func full(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func label(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

func esc(s string) string { return html.EscapeString(s) }

// FileName is a file name for a metric's chart: characters other than
// letters, digits, '.', '_' and '-' become '_', so a tag such as
// "eval/mean_return" names one file, not a directory.
func FileName(metric string) string {
	b := []byte(metric)
	for i, c := range b {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok || (i == 0 && c == '.') {
			b[i] = '_'
		}
	}
	return string(b) + ".svg"
}
