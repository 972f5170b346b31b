package plot

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"

	"github.com/rlxp/rlxp/internal/metrics"
)

// A Line is one run's curve on a chart.
type Line struct {
	Run      string // run id, for data-run
	Label    string // legend text
	Baseline bool   // drawn in black and thicker, with class "baseline"
	Points   []metrics.Point
}

// A Chart is one tag's curves, all runs overlaid.
type Chart struct {
	Title string
	Tag   string
	Lines []Line
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
)

// colour is the i-th run's colour; the baseline is drawn in black.
func colour(i int) string {
	palette := [...]string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}
	return palette[i%len(palette)]
}

// SVG draws the chart. The same chart always gives the same bytes: numbers
// are printed with a fixed precision and lines keep their given order.
func SVG(c Chart) []byte {
	var b bytes.Buffer
	h := height + legendH*len(c.Lines)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-tag="%s" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n",
		esc(c.Tag), width, h, width, h)
	fmt.Fprintf(&b, `<title>%s</title>`+"\n", esc(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>`+"\n", padL, esc(c.Title))

	x0, x1, y0, y1, ok := bounds(c.Lines)
	pw, ph := float64(width-padL-padR), float64(height-padT-padB)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="%s" fill="none" stroke="#999"/>`+"\n", padL, padT, num(pw), num(ph))
	if !ok {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#666">no points logged for this tag yet</text>`+"\n", padL+8, padT+20)
	} else {
		// Axis labels at the ends of each range.
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="start">%d</text>`+"\n", padL, height-padB+14, x0)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%d</text>`+"\n", width-padR, height-padB+14, x1)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">step</text>`+"\n", padL+int(pw/2), height-padB+14)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", padL-4, padT+10, label(y1))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", padL-4, height-padB, label(y0))
	}
	sx := func(s int64) float64 {
		if x1 == x0 {
			return padL + pw/2
		}
		return padL + float64(s-x0)/float64(x1-x0)*pw
	}
	sy := func(v float64) float64 {
		if y1 == y0 {
			return padT + ph/2
		}
		return padT + (y1-v)/(y1-y0)*ph
	}
	runs := 0
	for i, l := range c.Lines {
		stroke, wid, class := colour(runs), "1.5", "run"
		if l.Baseline {
			stroke, wid, class = "#000", "3", "baseline"
		} else {
			runs++
		}
		var pts bytes.Buffer
		for j, p := range l.Points {
			if j > 0 {
				pts.WriteByte(' ')
			}
			pts.WriteString(num(sx(p.Step)) + "," + num(sy(p.Value)))
		}
		fmt.Fprintf(&b, `<polyline class="%s" data-run="%s" data-points="%d" fill="none" stroke="%s" stroke-width="%s" points="%s"/>`+"\n",
			class, esc(l.Run), len(l.Points), stroke, wid, pts.String())
		if len(l.Points) < 3 {
			// A line of one or two points is too short to see: mark them.
			for _, p := range l.Points {
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(sx(p.Step)), num(sy(p.Value)), stroke)
			}
		}
		ly := height + legendH*i + 4
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="%s"/>`, padL, ly, padL+24, ly, stroke, wid)
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s (%d points)</text>`+"\n", padL+30, ly+4, esc(l.Label), len(l.Points))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// bounds is the step and value range of every point of every line.
func bounds(lines []Line) (x0, x1 int64, y0, y1 float64, ok bool) {
	for _, l := range lines {
		for _, p := range l.Points {
			if !ok {
				x0, x1, y0, y1, ok = p.Step, p.Step, p.Value, p.Value, true
				continue
			}
			x0, x1 = min(x0, p.Step), max(x1, p.Step)
			y0, y1 = math.Min(y0, p.Value), math.Max(y1, p.Value)
		}
	}
	return x0, x1, y0, y1, ok
}

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
