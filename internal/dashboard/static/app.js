// The dashboard page: reads /api/state and draws the tables, then asks the
// server for one SVG chart per tag. No third-party code; the server is the
// only origin the page talks to.
"use strict";

const REFRESH_MS = 10000;
const MAX_POINTS = 500;

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : String(k ?? ""));
  return e;
}

function fmt(x) {
  if (x === null || x === undefined) return "–";
  return Number(x).toPrecision(4).replace(/\.?0+$/, "");
}

function fill(id, rows) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren(...rows);
}

function contract(c) {
  document.getElementById("contract-summary").textContent =
    c.approved ? "All sections approved and current." : "Not every section is approved: nothing launches until all are.";
  fill("contract", c.sections.map(s => el("tr", { "data-section": s.name, class: "state-" + s.state },
    el("td", {}, s.name), el("td", { class: "state" }, s.state),
    el("td", {}, s.by ? s.by + " at " + s.at + (s.interactive ? "" : " (non-interactive)") : "–"),
    el("td", {}, s.summary || s.problem || ""))));
}

function experiments(list) {
  fill("experiments", list.map(e => el("tr", { "data-experiment": e.id },
    el("td", {}, e.id), el("td", { class: "status" }, e.status), el("td", {}, e.approval),
    el("td", {}, (e.seeds || []).join(", ")),
    el("td", {}, `${e.runs.total} (${e.runs.finished} finished, ${e.runs.failed} failed, ${e.runs.in_flight} in flight)`),
    el("td", { class: "verdict" }, e.verdict || "–"))));
}

function leaderboard(lb) {
  document.getElementById("leaderboard-summary").textContent =
    `${lb.metric || "primary metric"} (${lb.aggregate || "?"}, goal ${lb.goal || "?"})` +
    (lb.held_out ? "" : " — not a held-out metric") + (lb.problem ? " — ledger problem: " + lb.problem : "");
  fill("leaderboard", lb.rows.map(r => {
    const g = r.guardrails;
    let gs = `${g.passed}/${g.total} pass`;
    if (g.failed && g.failed.length) gs += "; failed: " + g.failed.join(", ");
    const delta = r.delta === null ? "–" : fmt(r.delta) + (r.relative_delta === null ? "" : ` (${fmt(100 * r.relative_delta)}%)`);
    return el("tr", { "data-experiment": r.experiment, class: r.baseline ? "baseline" : "" },
      el("td", {}, r.rank || "–"), el("td", {}, r.experiment + (r.baseline ? " (baseline)" : "")),
      el("td", { class: "mean" }, fmt(r.mean) + (r.std === null ? "" : " ± " + fmt(r.std))),
      el("td", { class: "ci" }, r.ci95 ? `[${fmt(r.ci95[0])}, ${fmt(r.ci95[1])}]` : "–"),
      el("td", {}, r.n), el("td", { class: "delta" }, delta),
      el("td", {}, r.p_value === null ? "–" : fmt(r.p_value) + (r.test ? ` (${r.test})` : "")),
      el("td", {}, gs), el("td", { class: "verdict" }, r.verdict));
  }));
}

function runs(list) {
  fill("runs", list.map(r => {
    const sigs = el("td", { class: "signatures" });
    for (const s of r.signatures) sigs.append(el("span", { class: "signature", title: s.advice || "" }, s.name));
    if (!r.signatures.length) sigs.append(r.diagnosis || "");
    let st = r.state + (r.state_detail ? ` (${r.state_detail})` : "");
    if (r.stopped_by) st += ", stopped by " + r.stopped_by;
    return el("tr", { "data-run": r.id, class: "state-" + r.state },
      el("td", {}, r.id), el("td", {}, r.experiment), el("td", {}, r.seed ?? "–"),
      el("td", { class: "state", title: (r.liveness || []).join("; ") }, st),
      el("td", {}, r.progress ? r.progress.last_step : "–"), sigs);
  }));
}

async function curves(charts) {
  const box = document.getElementById("curves");
  const svgs = [];
  // ?tag=NAME in the page's address adds a chart for any other tag.
  const extra = new URLSearchParams(location.search).getAll("tag")
    .filter(tag => !charts.tags.some(t => t.tag === tag)).map(tag => ({ tag, title: tag }));
  for (const t of charts.tags.concat(extra)) {
    const res = await fetch(`/api/chart?tag=${encodeURIComponent(t.tag)}&max=${MAX_POINTS}`);
    if (!res.ok) throw new Error(`chart ${t.tag}: ${res.status}`);
    const doc = new DOMParser().parseFromString(await res.text(), "image/svg+xml");
    svgs.push(document.importNode(doc.documentElement, true));
  }
  if (!svgs.length) svgs.push(el("p", {}, "No metric to draw: the contract names no primary metric yet."));
  box.replaceChildren(...svgs);
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    const res = await fetch("/api/state");
    const st = await res.json();
    if (!res.ok) throw new Error(st.error || res.statusText);
    document.getElementById("root").textContent = st.root;
    contract(st.contract);
    experiments(st.experiments);
    leaderboard(st.leaderboard);
    runs(st.runs);
    await curves(st.charts);
    status.className = "";
    status.textContent = "read from disk at " + new Date().toLocaleTimeString() + (st.problem ? " — runs not shown: " + st.problem : "");
  } catch (e) {
    status.className = "error";
    status.textContent = "error: " + e.message;
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
