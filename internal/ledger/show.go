package ledger

import (
	"strconv"
	"strings"
)

// ShowSchema is the schema of 'ledger show --json'.
const ShowSchema = "rlxp.ledger-show/v1"

// OfExperiment keeps the entries of one experiment; "" keeps them all.
// The result is never nil, so that JSON lists it as [].
func OfExperiment(entries []Entry, id string) []Entry {
	out := []Entry{}
	for _, e := range entries {
		if id == "" || e.String("experiment") == id {
			out = append(out, e)
		}
	}
	return out
}

// ShowHeader names the columns of ShowCells.
var ShowHeader = []string{"SEQ", "TIME", "EXPERIMENT", "RUN", "METRIC", "MEAN", "N", "VERDICT"}

// ShowCells is an entry as a row of the ledger's table: "-" for what it
// lacks, the verdict last.
func (e Entry) ShowCells() []string {
	return []string{
		strconv.FormatInt(e.Seq, 10), e.Time, orDash(e.String("experiment")), orDash(e.Run()),
		orDash(e.String("primary", "name")), orDash(e.Number("primary", "mean")),
		orDash(e.Number("primary", "n")), orDash(e.String("verdict")),
	}
}

// A CSVRow is an entry as a CSV row. Numbers are kept as recorded, and a
// value the entry lacks is an empty cell, never a zero.
type CSVRow struct {
	Seq           int64  `csv:"seq"`
	Time          string `csv:"time"`
	Experiment    string `csv:"experiment"`
	Run           string `csv:"run"`
	Metric        string `csv:"metric"`
	Mean          string `csv:"mean"`
	Std           string `csv:"std"`
	N             string `csv:"n"`
	CILow         string `csv:"ci_low"`
	CIHigh        string `csv:"ci_high"`
	BaselineDelta string `csv:"baseline_delta"`
	PValue        string `csv:"p_value"`
	Verdict       string `csv:"verdict"`
	Hash          string `csv:"hash"`
}

// CSV is the entry as a CSV row.
func (e Entry) CSV() CSVRow {
	row := CSVRow{
		Seq: e.Seq, Time: e.Time, Experiment: e.String("experiment"), Run: e.Run(),
		Metric: e.String("primary", "name"), Mean: e.Number("primary", "mean"),
		Std: e.Number("primary", "std"), N: e.Number("primary", "n"),
		BaselineDelta: e.Number("baseline", "delta"), PValue: e.Number("baseline", "p_value"),
		Verdict: e.String("verdict"), Hash: e.Hash,
	}
	if v, ok := e.Lookup("primary", "ci95"); ok {
		if a, ok := v.([]any); ok && len(a) == 2 {
			row.CILow, row.CIHigh = numberText(a[0]), numberText(a[1])
		}
	}
	return row
}

// Run is the run an entry scored: "run", or the per-seed "runs" joined by
// commas.
func (e Entry) Run() string {
	if s := e.String("run"); s != "" {
		return s
	}
	v, _ := e.Lookup("runs")
	a, _ := v.([]any)
	var runs []string
	for _, x := range a {
		if s, ok := x.(string); ok && s != "" {
			runs = append(runs, s)
		}
	}
	return strings.Join(runs, ",")
}

// numberText is a JSON number as recorded; "" for anything else.
func numberText(v any) string {
	if n, ok := v.(interface{ String() string }); ok {
		return n.String()
	}
	return ""
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// A Listing is what 'ledger show' lists: the entries whose chain
// verifies, of one experiment or of all.
type Listing struct {
	Schema  string  `json:"schema"`
	Entries []Entry `json:"entries"`
	// Problem is the first line that does not verify; the entries before
	// it are listed.
	Problem *Problem `json:"-"`
	// Verified counts the entries before the problem, of every experiment.
	Verified int `json:"-"`
}

// List reads a ledger's content for 'ledger show': the entries of the
// experiment id ("" for all) up to the first line that does not verify.
func (f File) List(data []byte, id string) Listing {
	all, rep := f.Load(data)
	return Listing{Schema: ShowSchema, Entries: OfExperiment(all, id), Problem: rep.Problem, Verified: len(all)}
}

// CSV is the listing as CSV rows.
func (l Listing) CSV() []CSVRow {
	rows := make([]CSVRow, len(l.Entries))
	for i, e := range l.Entries {
		rows[i] = e.CSV()
	}
	return rows
}
