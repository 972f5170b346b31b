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

// ---- Learning curves --------------------------------------------------
// The server sends each tag's runs, grouped by experiment, with the mean
// and 95% band across seeds (/api/curves); the page draws them and
// applies the reading aids, so that a control redraws without a request.

const SVGNS = "http://www.w3.org/2000/svg";
const W = 640, H = 320, PL = 64, PR = 16, PT = 28, PB = 40;
const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
const view = { charts: null, data: {}, leaderboard: null };

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : String(k));
  return e;
}

// TensorBoard's debiased exponential moving average: weight 0 gives the
// series as logged; the first points are not pulled towards zero.
function smooth(values, w) {
  if (!w) return values.slice();
  let last = 0, n = 0;
  return values.map(v => {
    if (!Number.isFinite(v)) return v;
    last = last * w + (1 - w) * v;
    n++;
    return last / (1 - Math.pow(w, n));
  });
}

function controls() {
  return {
    smoothing: Number(document.getElementById("smoothing").value),
    seeds: document.getElementById("seeds").checked,
    log: document.getElementById("logy").checked,
    x: document.getElementById("xaxis").value,
    a: document.getElementById("cmp-a").value,
    b: document.getElementById("cmp-b").value,
  };
}

function colours(groups) {
  let n = 0;
  return groups.map(g => g.baseline ? "#000" : PALETTE[n++ % PALETTE.length]);
}

// series turns a group into what is drawn: the mean and band on the grid,
// and each seed, as [x, y] lists under the current controls.
function series(g, c) {
  const wall = c.x === "wall";
  const xs = wall ? g.band.wall : g.band.steps;
  const out = { mean: [], lo: [], hi: [], seeds: [] };
  if (xs && xs.length) {
    const m = smooth(g.band.mean, c.smoothing);
    out.mean = xs.map((x, i) => [x, m[i], g.band.steps[i]]);
    if (g.band.lo) {
      const lo = smooth(g.band.lo, c.smoothing), hi = smooth(g.band.hi, c.smoothing);
      out.lo = xs.map((x, i) => [x, lo[i]]);
      out.hi = xs.map((x, i) => [x, hi[i]]);
    }
  }
  for (const s of g.seeds) {
    // Smoothed, a seed is drawn from its values on the band's grid, so
    // that the smoothed mean is the mean of the smoothed seeds (the EMA is
    // linear); unsmoothed, from its points as logged.
    const onGrid = c.smoothing > 0 && xs && (g.band.seeds || []).find(x => x.run === s.run);
    if (onGrid) {
      const v = smooth(onGrid.values, c.smoothing);
      out.seeds.push({ run: s.run, seed: s.seed, label: s.label, pts: xs.map((x, i) => [x, v[i], g.band.steps[i]]) });
      continue;
    }
    const t0 = s.points.length ? s.points[0][2] : 0;
    const ok = !wall || s.points.every(p => p[2] > 0);
    out.seeds.push({ run: s.run, seed: s.seed, label: s.label,
      pts: ok ? s.points.map(p => [wall ? p[2] - t0 : p[0], p[1], p[0]]) : [] });
  }
  return out;
}

function fmtX(x, wall) {
  if (!wall) return String(Math.round(x));
  if (x < 120) return x.toFixed(0) + " s";
  if (x < 7200) return (x / 60).toFixed(1) + " min";
  return (x / 3600).toFixed(1) + " h";
}

function drawCurves(t, d, c) {
  const asked = c.x;
  // Wall time needs every point of a run stamped; files without stamps
  // are drawn by step, and the axis says why.
  const stamped = d.groups.some(g => g.seeds.some(s => s.points.length && s.points.every(p => p[2] > 0)));
  if (c.x === "wall" && !stamped) c = { ...c, x: "step" };
  const wall = c.x === "wall";
  const groups = d.groups.filter(g => !c.a || !c.b || g.experiment === c.a || g.experiment === c.b);
  const col = colours(d.groups);
  const colOf = g => col[d.groups.indexOf(g)];
  const drawn = groups.map(g => ({ g, s: series(g, c) }));
  const ok = y => Number.isFinite(y) && (!c.log || y > 0);
  const ty = y => c.log ? Math.log10(y) : y;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  const widen = ([x, y]) => {
    if (!ok(y)) return;
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, ty(y)); y1 = Math.max(y1, ty(y));
  };
  for (const { s } of drawn) {
    s.mean.forEach(widen); s.lo.forEach(widen); s.hi.forEach(widen);
    if (c.seeds) s.seeds.forEach(sd => sd.pts.forEach(widen));
  }
  const root = svg("svg", { class: "chart", "data-tag": t.tag, "data-kind": "curves", "data-smoothing": c.smoothing,
    "data-x": c.x, "data-x-asked": asked, "data-log": c.log, viewBox: `0 0 ${W} ${H}`, width: W, height: H });
  root.append(svg("text", { x: PL, y: 18, class: "title" }, t.title));
  root.append(svg("rect", { x: PL, y: PT, width: W - PL - PR, height: H - PT - PB, class: "frame" }));
  if (!(x0 <= x1)) {
    root.append(svg("text", { x: PL + 8, y: PT + 20, class: "note" }, "no points logged for this tag yet"));
    return root;
  }
  const sx = x => x1 === x0 ? PL + (W - PL - PR) / 2 : PL + (x - x0) / (x1 - x0) * (W - PL - PR);
  const sy = y => y1 === y0 ? PT + (H - PT - PB) / 2 : PT + (y1 - ty(y)) / (y1 - y0) * (H - PT - PB);
  const ylab = v => c.log ? fmt(Math.pow(10, v)) : fmt(v);
  root.append(svg("text", { x: PL, y: H - PB + 14 }, fmtX(x0, wall)));
  root.append(svg("text", { x: W - PR, y: H - PB + 14, "text-anchor": "end" }, fmtX(x1, wall)));
  root.append(svg("text", { x: PL + (W - PL - PR) / 2, y: H - PB + 28, "text-anchor": "middle", class: "note" },
    wall ? "wall time since each run's first point" : asked === "wall" ? "step (these files log no wall times)" : "step"));
  root.append(svg("text", { x: PL - 4, y: PT + 10, "text-anchor": "end" }, ylab(y1)));
  root.append(svg("text", { x: PL - 4, y: H - PB, "text-anchor": "end" }, ylab(y0)));
  if (c.log) root.append(svg("text", { x: PL - 4, y: PT + (H - PT - PB) / 2, "text-anchor": "end", class: "note" }, "log"));
  const line = pts => pts.filter(p => ok(p[1])).map(p => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(" ");
  const hover = [];
  for (const { g, s } of drawn) {
    const colour = colOf(g);
    if (s.lo.length) {
      const n = s.lo.length;
      const keep = s.lo.map((p, i) => ok(p[1]) && ok(s.hi[i][1]));
      const up = s.hi.filter((p, i) => keep[i]), down = s.lo.filter((p, i) => keep[i]).reverse();
      root.append(svg("polygon", { class: "band", "data-experiment": g.experiment, "data-step": g.band.steps[n - 1],
        "data-lo": s.lo[n - 1][1], "data-hi": s.hi[n - 1][1], "data-n": g.band.n, fill: colour, "fill-opacity": 0.2,
        points: line(up) + " " + line(down) }));
    }
    if (c.seeds) {
      for (const sd of s.seeds) {
        root.append(svg("polyline", { class: "seed", "data-run": sd.run, "data-seed": sd.seed ?? "", "data-points": sd.pts.length,
          "data-values": sd.pts.map(p => p[1]).join(" "), stroke: colour, points: line(sd.pts) }));
        for (const p of sd.pts) hover.push({ p, text: `${g.experiment} seed ${sd.seed ?? "–"} (run ${sd.run})` });
      }
    }
    if (s.mean.length) {
      root.append(svg("polyline", { class: "mean", "data-experiment": g.experiment, "data-n": g.band.n, "data-points": s.mean.length,
        "data-values": s.mean.map(p => p[1]).join(" "), stroke: colour, points: line(s.mean) }));
      s.mean.forEach((p, i) => hover.push({ p, text: `${g.experiment}: mean of ${g.band.n} seed${g.band.n === 1 ? "" : "s"}` +
        (s.lo.length ? ` [${fmt(s.lo[i][1])}, ${fmt(s.hi[i][1])}]` : "") }));
    }
  }
  const guide = svg("line", { class: "guide", y1: PT, y2: H - PB, visibility: "hidden" });
  const mark = svg("circle", { class: "mark", r: 4, visibility: "hidden" });
  root.append(guide, mark);
  const area = svg("rect", { class: "hover", x: PL, y: PT, width: W - PL - PR, height: H - PT - PB });
  root.append(area);
  area.addEventListener("mousemove", ev => {
    const box = root.getBoundingClientRect();
    const mx = (ev.clientX - box.left) * W / box.width, my = (ev.clientY - box.top) * H / box.height;
    let best = null, bd = Infinity;
    for (const h of hover) {
      if (!ok(h.p[1])) continue;
      const dx = sx(h.p[0]) - mx, dy = sy(h.p[1]) - my, dd = dx * dx * 4 + dy * dy;
      if (dd < bd) { bd = dd; best = h; }
    }
    if (!best) return;
    const [x, y, step] = best.p;
    guide.setAttribute("x1", sx(x)); guide.setAttribute("x2", sx(x)); guide.setAttribute("visibility", "visible");
    mark.setAttribute("cx", sx(x)); mark.setAttribute("cy", sy(y)); mark.setAttribute("visibility", "visible");
    tooltip(ev, `step ${step}` + (wall ? ` · ${fmtX(x, true)}` : "") + ` · value ${fmt(y)} · ${best.text}`);
  });
  area.addEventListener("mouseleave", () => {
    guide.setAttribute("visibility", "hidden"); mark.setAttribute("visibility", "hidden"); tooltip(null);
  });
  legend(root, groups, colOf);
  return root;
}

// drawDots draws a metric logged once per run: per experiment a dot per
// run, the mean as a bar and the 95% CI as whiskers.
function drawDots(t, d, c) {
  const groups = d.groups.filter(g => !c.a || !c.b || g.experiment === c.a || g.experiment === c.b);
  const col = colours(d.groups);
  const colOf = g => col[d.groups.indexOf(g)];
  const ok = y => Number.isFinite(y) && (!c.log || y > 0);
  const ty = y => c.log ? Math.log10(y) : y;
  let y0 = Infinity, y1 = -Infinity;
  const widen = y => { if (ok(y)) { y0 = Math.min(y0, ty(y)); y1 = Math.max(y1, ty(y)); } };
  for (const g of groups) {
    g.seeds.forEach(s => s.points.forEach(p => widen(p[1])));
    if (g.dots && g.dots.ci95) { widen(g.dots.ci95[0]); widen(g.dots.ci95[1]); }
  }
  const root = svg("svg", { class: "chart", "data-tag": t.tag, "data-kind": "dots", viewBox: `0 0 ${W} ${H}`, width: W, height: H });
  root.append(svg("text", { x: PL, y: 18, class: "title" }, t.title));
  root.append(svg("rect", { x: PL, y: PT, width: W - PL - PR, height: H - PT - PB, class: "frame" }));
  const pad = (y1 - y0) * 0.05 || 1;
  y0 -= pad; y1 += pad;
  const sy = y => PT + (y1 - ty(y)) / (y1 - y0) * (H - PT - PB);
  const ylab = v => c.log ? fmt(Math.pow(10, v)) : fmt(v);
  root.append(svg("text", { x: PL - 4, y: PT + 10, "text-anchor": "end" }, ylab(y1)));
  root.append(svg("text", { x: PL - 4, y: H - PB, "text-anchor": "end" }, ylab(y0)));
  const cw = (W - PL - PR) / Math.max(groups.length, 1);
  groups.forEach((g, i) => {
    const x = PL + cw * (i + 0.5), colour = colOf(g);
    root.append(svg("text", { x, y: H - PB + 14, "text-anchor": "middle" }, g.experiment));
    if (!g.dots) return;
    const d = g.dots;
    const box = svg("g", { class: "dots", "data-experiment": g.experiment, "data-n": d.n, "data-mean": d.mean,
      "data-lo": d.ci95 ? d.ci95[0] : null, "data-hi": d.ci95 ? d.ci95[1] : null });
    const ci = d.ci95 ? ` [${fmt(d.ci95[0])}, ${fmt(d.ci95[1])}]` : " (one run: no interval)";
    g.seeds.forEach((s, j) => s.points.forEach(p => {
      if (!ok(p[1])) return;
      const dot = svg("circle", { class: "seed", "data-run": s.run, cx: x + (j - (g.seeds.length - 1) / 2) * 8, cy: sy(p[1]), r: 4, fill: colour });
      dot.addEventListener("mousemove", ev => tooltip(ev, `step ${p[0]} · value ${fmt(p[1])} · ${g.experiment} seed ${s.seed ?? "–"} (run ${s.run})`));
      dot.addEventListener("mouseleave", () => tooltip(null));
      box.append(dot);
    }));
    if (ok(d.mean)) {
      const bar = svg("line", { class: "mean", x1: x - 16, x2: x + 16, y1: sy(d.mean), y2: sy(d.mean), stroke: colour });
      bar.addEventListener("mousemove", ev => tooltip(ev, `${g.experiment}: mean ${fmt(d.mean)} of ${d.n}${ci}`));
      bar.addEventListener("mouseleave", () => tooltip(null));
      box.append(bar);
    }
    if (d.ci95 && ok(d.ci95[0]) && ok(d.ci95[1])) {
      box.append(svg("line", { class: "ci", x1: x, x2: x, y1: sy(d.ci95[0]), y2: sy(d.ci95[1]), stroke: colour }));
    }
    root.append(box);
  });
  legend(root, groups, colOf);
  return root;
}

function legend(root, groups, colOf) {
  const h = Number(root.getAttribute("height")) + 16 * groups.length + 4;
  groups.forEach((g, i) => {
    const y = H + 16 * i + 2;
    root.append(svg("rect", { x: PL, y: y - 4, width: 24, height: 8, fill: colOf(g), "fill-opacity": 0.25 }));
    root.append(svg("line", { x1: PL, x2: PL + 24, y1: y, y2: y, stroke: colOf(g), "stroke-width": 2 }));
    root.append(svg("text", { x: PL + 30, y: y + 4 }, `${g.experiment}${g.baseline && g.experiment !== "baseline" ? " (baseline)" : ""}, ${g.seeds.length} seed${g.seeds.length === 1 ? "" : "s"}`));
  });
  root.setAttribute("height", h);
  root.setAttribute("viewBox", `0 0 ${W} ${h}`);
}

function tooltip(ev, text) {
  const tip = document.getElementById("tooltip");
  if (!ev) { tip.hidden = true; return; }
  tip.textContent = text;
  tip.hidden = false;
  tip.style.left = (ev.pageX + 12) + "px";
  tip.style.top = (ev.pageY + 12) + "px";
}

function experimentsOf() {
  const ids = new Set();
  for (const d of Object.values(view.data)) d.groups.forEach(g => ids.add(g.experiment));
  return [...ids];
}

function fillSelect(id, ids) {
  const sel = document.getElementById(id), cur = sel.value;
  sel.replaceChildren(el("option", { value: "" }, "—"), ...ids.map(x => el("option", { value: x }, x)));
  if (ids.includes(cur)) sel.value = cur;
}

function draw() {
  const c = controls();
  document.getElementById("smoothing-value").textContent = c.smoothing.toFixed(2);
  const box = document.getElementById("curves");
  if (!view.charts) return;
  const tags = view.charts.tags.concat(new URLSearchParams(location.search).getAll("tag")
    .filter(tag => !view.charts.tags.some(t => t.tag === tag)).map(tag => ({ tag, title: tag })));
  const out = tags.filter(t => view.data[t.tag]).map(t => {
    const d = view.data[t.tag];
    return d.kind === "dots" ? drawDots(t, d, c) : drawCurves(t, d, c);
  });
  if (!out.length) out.push(el("p", {}, "No metric to draw: the contract names no primary metric yet."));
  box.replaceChildren(...out);
  compare(c);
}

async function compare(c) {
  const box = document.getElementById("compare");
  if (!c.a || !c.b || c.a === c.b) {
    box.replaceChildren(el("p", { class: "note" }, "Pick two experiments to compare their curves, final values and the test between them."));
    return;
  }
  const res = await fetch(`/api/compare?a=${encodeURIComponent(c.a)}&b=${encodeURIComponent(c.b)}`);
  const r = await res.json();
  if (!res.ok) { box.replaceChildren(el("p", { class: "error" }, r.error || res.statusText)); return; }
  const row = s => el("tr", { "data-experiment": s.experiment },
    el("td", {}, s.experiment), el("td", { class: "mean" }, fmt(s.mean)),
    el("td", { class: "ci" }, s.ci95 ? `[${fmt(s.ci95[0])}, ${fmt(s.ci95[1])}]` : "–"),
    el("td", {}, s.n), el("td", {}, "ledger seq " + s.seq));
  const delta = r.delta === null ? "–" : fmt(r.delta) + (r.relative_delta === null ? "" : ` (${fmt(100 * r.relative_delta)}%)`);
  box.replaceChildren(
    el("table", {}, el("thead", {}, el("tr", {}, ...["experiment", "final mean", "95% CI", "n", "entry"].map(h => el("th", {}, h)))),
      el("tbody", {}, row(r.a), row(r.b))),
    el("p", { class: "result", "data-delta": r.delta, "data-p": r.p_value, "data-test": r.test, "data-from": r.from },
      `Δ (${r.a.experiment} − ${r.b.experiment}) = `, el("strong", { class: "delta" }, delta),
      ", p = ", el("strong", { class: "p" }, r.p_value === null ? "–" : fmt(r.p_value)),
      ` (${r.test}; ${r.from === "ledger" ? "as the ledger records it" : r.from})`));
}

async function curves(charts) {
  view.charts = charts;
  const tags = charts.tags.map(t => t.tag).concat(new URLSearchParams(location.search).getAll("tag"));
  for (const tag of tags) {
    const res = await fetch(`/api/curves?tag=${encodeURIComponent(tag)}&max=${MAX_POINTS}`);
    if (!res.ok) throw new Error(`curves ${tag}: ${res.status}`);
    view.data[tag] = await res.json();
  }
  const ids = experimentsOf();
  fillSelect("cmp-a", ids);
  fillSelect("cmp-b", ids);
  draw();
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
    document.body.dataset.ready = "true";
  } catch (e) {
    status.className = "error";
    status.textContent = "error: " + e.message;
  }
}

for (const id of ["smoothing", "seeds", "logy", "xaxis", "cmp-a", "cmp-b"]) {
  document.getElementById(id).addEventListener("input", draw);
}
refresh();
setInterval(refresh, REFRESH_MS);
