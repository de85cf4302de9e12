// agenteval HTML report. Plain JavaScript, no dependencies, no network.
// Every text from the data goes into the page through text nodes (see el/shown), never as markup.
"use strict";
(function () {
  const INDEX = JSON.parse(document.getElementById("report-index").textContent);
  const ROW_H = 30;
  const OVERSCAN = 8;
  const SVG_NS = "http://www.w3.org/2000/svg";
  const KINDS = ["regressed", "disappeared", "unscored", "appeared", "changed", "improved"];
  // A text longer than this shows its start and a "show more" button: laying out one
  // megabyte-long string took seconds, and no one reads it whole on the page anyway.
  const TEXT_CAP = 10000;
  const MORE_STEP = 100000;
  // The word diff compares at most this many characters of each side.
  const DIFF_CHARS = 10000;
  // Characters of a text shown in a row of the case list (the row clips it anyway).
  const ROW_CHARS = 200;
  // A JSON value of more values than this is shown as text, not as a tree whose every value
  // is an element: a tool result of 40,000 items made 480,000 and froze the page for 25 s.
  const JSON_VALUES = 5000;
  // Cases the summary's failures-first list names; the Cases tab has the rest.
  const FAILURES_SHOWN = 500;
  // Rows a long table (verdicts, a comparison's changes) shows at first and adds per "show
  // more": a row per case of 100,000 took 15 s to open the page and 2 s to change tabs.
  const ROWS_SHOWN = 500;

  // --- small DOM helpers -------------------------------------------------------------------

  // Control characters (ANSI escapes among them) become visible symbols: ESC shows as ␛;
  // bidi controls, which would reorder what is shown, become their escape (\u202e).
  function shown(text) {
    return String(text)
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
        c === "\u007f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0)))
      .replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) =>
        "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }

  // A text node, or for a text past TEXT_CAP its start and a button that shows more.
  function textOf(text) {
    text = String(text);
    if (text.length <= TEXT_CAP) return document.createTextNode(shown(text));
    let upto = TEXT_CAP;
    const body = document.createTextNode(shown(text.slice(0, upto)));
    const more = document.createElement("button");
    more.type = "button";
    more.className = "more";
    const label = () => {
      more.textContent = "… show more (" + (text.length - upto).toLocaleString("en") + " more characters)";
    };
    label();
    more.addEventListener("click", (event) => {
      event.stopPropagation();
      const next = Math.min(text.length, upto + MORE_STEP);
      body.appendData(shown(text.slice(upto, next)));
      upto = next;
      if (upto >= text.length) more.remove(); else label();
    });
    const wrap = document.createElement("span");
    wrap.className = "long";
    wrap.append(body, more);
    return wrap;
  }

  function clip(text, limit) {
    text = String(text);
    return text.length > limit ? text.slice(0, limit) + "…" : text;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) append(node, child);
      else if (child instanceof Node) node.appendChild(child);
      else node.appendChild(textOf(child));
    }
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    for (const child of children) {
      if (child instanceof Node) node.appendChild(child);
      else if (child !== null && child !== undefined) node.appendChild(textOf(child));
    }
    return node;
  }

  function fmt(score) {
    if (score === null || score === undefined) return "—";
    if (typeof score !== "number") return String(score);
    return String(Math.round(score * 10000) / 10000);
  }

  // A score beside its threshold, as inputs/score_text.py's score_beside and threshold_beside:
  // 4 decimals, unless they print the threshold's text for a different number (the mean of
  // 1, 1 and 0.4 failing 0.8 would read "0.8 … threshold 0.8"); then to the last digit.
  function roundsOnto(score, threshold) {
    return typeof score === "number" && typeof threshold === "number" && score !== threshold &&
      fmt(score) === fmt(threshold);
  }

  function scoreBeside(score, threshold) {
    return roundsOnto(score, threshold) ? String(score) : fmt(score);
  }

  function thresholdBeside(threshold, ...scores) {
    return scores.some((score) => roundsOnto(score, threshold)) ? String(threshold) : fmt(threshold);
  }

  function pct(rate) {
    if (rate === null || rate === undefined) return "—";
    // Rounded, but never onto 100 % when a case did not pass nor onto 0 % when one did,
    // as the console and Markdown round theirs (inputs/score_text.pass_percent).
    var value = rate * 100;
    if (rate < 1) value = Math.min(value, 99.9);
    if (rate > 0) value = Math.max(value, 0.1);
    return (Math.round(value * 10) / 10) + "%";
  }

  function badge(status, prefix) {
    status = String(status); // a judge sample's status is whatever its saved file says
    return el("span", { class: "badge " + (prefix || "s-") + status }, status.replace("_", " "));
  }

  function messageText(message) {
    if (!message) return "";
    if (message.content) return String(message.content);
    const parts = message.contentParts || [];
    return parts.map((p) => (p && typeof p.text === "string" ? p.text : "")).join(" ");
  }

  // --- JSON trees whose value nodes carry their JSON path (as criteria/jsoncmp.py writes it) ---

  function childPath(path, key) {
    if (typeof key === "number") return path + "[" + key + "]";
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? path + "." + key : path + "[" + JSON.stringify(key) + "]";
  }

  // How many values (objects, arrays and leaves) ``value`` holds, counted up to past ``limit``.
  function valueCount(value, limit) {
    let count = 0;
    const stack = [value];
    while (stack.length && count <= limit) {
      const v = stack.pop();
      count++;
      if (v && typeof v === "object") for (const key in v) stack.push(v[key]);
    }
    return count;
  }

  // A value too large for a tree: its JSON as text, capped as every long text is, and the
  // paths a reason names said above it (their values are in the tool difference).
  function bigJson(value, marked) {
    const box = el("div", { class: "json-big" });
    if (marked && marked.size) {
      box.appendChild(el("div", { class: "json-marks hl" }, "too large to mark: " + [...marked].join(", ") + " (its values are above)"));
    }
    box.appendChild(el("pre", { class: "json" }, JSON.stringify(value, null, 2)));
    return box;
  }

  function jsonTree(value, marked) {
    if (valueCount(value, JSON_VALUES) > JSON_VALUES) return bigJson(value, marked);
    const pre = el("pre", { class: "json" });
    const lines = [];
    function walk(v, path, indent, into) {
      const span = el("span", { class: "v", "data-path": path });
      if (marked && marked.has(path)) span.classList.add("hl");
      if (Array.isArray(v) || (v && typeof v === "object")) {
        const isArray = Array.isArray(v);
        const keys = isArray ? v.map((_, i) => i) : Object.keys(v);
        if (!keys.length) {
          span.appendChild(document.createTextNode(isArray ? "[]" : "{}"));
        } else {
          span.appendChild(document.createTextNode(isArray ? "[\n" : "{\n"));
          keys.forEach((key, i) => {
            span.appendChild(textOf(" ".repeat(indent + 2) + (isArray ? "" : JSON.stringify(key) + ": ")));
            walk(v[key], childPath(path, key), indent + 2, span);
            span.appendChild(document.createTextNode(i < keys.length - 1 ? ",\n" : "\n"));
          });
          span.appendChild(document.createTextNode(" ".repeat(indent) + (isArray ? "]" : "}")));
        }
      } else {
        span.appendChild(textOf(v === undefined ? "null" : JSON.stringify(v)));
      }
      into.appendChild(span);
    }
    walk(value === undefined ? null : value, "$", 0, pre);
    void lines;
    return pre;
  }

  // --- word-level diff (LCS over words; whitespace kept as it was) ---------------------------

  function wordDiff(before, after) {
    const cut = before.length > DIFF_CHARS || after.length > DIFF_CHARS;
    before = before.slice(0, DIFF_CHARS);
    after = after.slice(0, DIFF_CHARS);
    const out = el("div", { class: "text worddiff" });
    if (cut) out.appendChild(el("div", { class: "muted diff-cut" }, "the first " + DIFF_CHARS.toLocaleString("en") + " characters of each side"));
    const a = before.match(/\S+|\s+/g) || [];
    const b = after.match(/\S+|\s+/g) || [];
    const n = a.length, m = b.length;
    if (n * m > 4000000) {
      out.appendChild(el("del", {}, before));
      out.appendChild(el("ins", {}, after));
      return out;
    }
    const table = new Array(n + 1);
    for (let i = 0; i <= n; i++) table[i] = new Int32Array(m + 1);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
      }
    }
    let i = 0, j = 0;
    const pieces = [];
    function push(kind, text) {
      const last = pieces[pieces.length - 1];
      if (last && last[0] === kind) last[1] += text; else pieces.push([kind, text]);
    }
    while (i < n && j < m) {
      if (a[i] === b[j]) { push("same", a[i]); i++; j++; }
      else if (table[i + 1][j] >= table[i][j + 1]) { push("del", a[i]); i++; }
      else { push("ins", b[j]); j++; }
    }
    while (i < n) push("del", a[i++]);
    while (j < m) push("ins", b[j++]);
    for (const [kind, text] of pieces) {
      out.appendChild(kind === "same" ? textOf(text) : el(kind, {}, text));
    }
    return out;
  }

  // --- state ----------------------------------------------------------------------------------

  const runs = INDEX.runs;
  const comparison = INDEX.comparison;
  const state = {
    run: runs.length - 1, tab: null, filtered: [], selected: -1, openRow: -1, openRun: -1,
    filters: { status: "", set: "", metric: "", change: "", query: "" },
  };
  const chunkCache = new Map();
  const rowKey = runs.map((run) => {
    const map = new Map();
    run.cases.forEach((row, i) => map.set(run.evalSets[row[0]].evalSetId + "\u0000" + row[1], i));
    return map;
  });
  const lowered = runs.map(() => null);
  const caseChange = runs.map(() => new Map());
  if (comparison) {
    // Worst change per case of the NEW run (and those only on BASE), for badges and filters.
    for (const change of comparison.changes) {
      const target = change.new ? 1 : 0;
      const key = change.evalSetId + "\u0000" + change.evalId;
      const known = caseChange[target].get(key);
      if (!known || KINDS.indexOf(change.kind) < KINDS.indexOf(known)) caseChange[target].set(key, change.kind);
    }
  }

  function criterionOf(run, setIndex, metricName) {
    const set = runs[run].evalSets[setIndex];
    for (const metric of set.metrics) if (metric.name === metricName) return metric;
    return null;
  }

  // Case details: chunks of INDEX.chunkSize entries, one entry per case result (run). They sit
  // in the page as JSON (parsed when first needed) or, for a large run, in the sidecar
  // directory INDEX.shards.dir as scripts that hand their data to agentevalShard.
  const shardWaits = new Map();
  let cacheLimit = 24; // chunks kept parsed; raised to hold every run of the open case

  function remember(key, chunk) {
    while (chunkCache.size >= cacheLimit) chunkCache.delete(chunkCache.keys().next().value);
    chunkCache.set(key, chunk);
  }

  window.agentevalShard = function (token, run, number, data) {
    if (!INDEX.shards || token !== INDEX.shards.token) return; // another report's shard
    const key = run + "-" + number;
    remember(key, data);
    const wait = shardWaits.get(key);
    if (wait) wait.done = true;
  };

  // The chunk if it is at hand (cached or in the page), else null.
  function chunkNow(run, number) {
    const key = run + "-" + number;
    let chunk = chunkCache.get(key);
    if (chunk) return chunk;
    const node = document.getElementById("chunk-" + key);
    if (!node) return null;
    chunk = JSON.parse(node.textContent);
    remember(key, chunk);
    return chunk;
  }

  function loadShard(run, number) {
    const key = run + "-" + number;
    let wait = shardWaits.get(key);
    if (wait && !wait.failed && !(wait.done && !chunkCache.has(key))) return wait.promise;
    wait = { done: false, failed: false };
    wait.promise = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      const name = run + "-" + String(number).padStart(5, "0") + ".js";
      const file = INDEX.shards.dir + "/" + name;
      // Each part encoded whole: encodeURI kept the "#" of "report #2.cases" (a fragment).
      script.src = encodeURIComponent(INDEX.shards.dir) + "/" + name;
      script.onload = () => {
        script.remove();
        if (wait.done) { resolve(); return; }
        wait.failed = true;
        reject(new Error(file + " belongs to another report: write this report again"));
      };
      script.onerror = () => {
        script.remove();
        wait.failed = true;
        reject(new Error("cannot load " + file + ": keep the " + INDEX.shards.dir + " directory next to this page"));
      };
      document.head.appendChild(script);
    });
    shardWaits.set(key, wait);
    return wait.promise;
  }

  // Every run of a case ({runs, marks, explain}), or null while a chunk is not at hand.
  function detail(run, index) {
    const entries = runs[run].cases[index][6];
    const out = { runs: [], marks: [], explain: [] };
    for (const entry of entries) {
      const chunk = chunkNow(run, Math.floor(entry / INDEX.chunkSize));
      if (!chunk) return null;
      const item = chunk[entry % INDEX.chunkSize];
      out.runs.push(item.run);
      out.marks.push(item.marks);
      out.explain.push(item.explain || {});
    }
    return out;
  }

  function missingChunks(run, index) {
    const numbers = new Set(runs[run].cases[index][6].map((entry) => Math.floor(entry / INDEX.chunkSize)));
    cacheLimit = Math.max(cacheLimit, numbers.size + 1);
    return [...numbers].filter((number) => !chunkNow(run, number));
  }

  // --- tabs and run picker ----------------------------------------------------------------------

  // The built-in tabs, then one per page a command added (INDEX.pages, report/html.py).
  const PAGES = INDEX.pages || [];
  const TABS = ["summary", "cases", "compare", ...PAGES.map((page) => "page-" + page.id)];

  function showTab(tab) {
    state.tab = tab;
    for (const button of document.querySelectorAll("#tabs button")) {
      button.setAttribute("aria-selected", String(button.dataset.tab === tab));
    }
    for (const name of TABS) {
      document.getElementById(name).hidden = name !== tab;
    }
    if (tab === "cases") renderRows();
  }

  function renderRunPicker() {
    const picker = document.getElementById("run-picker");
    picker.textContent = "";
    if (runs.length < 2) return;
    runs.forEach((run, i) => {
      const label = (comparison ? (i === 0 ? "base: " : "new: ") : "") + run.label;
      picker.appendChild(el("button", {
        type: "button", "aria-pressed": String(i === state.run), "data-run": i,
        on: { click: () => { state.run = i; renderRunPicker(); renderSummary(); setupFilters(); applyFilters(); } },
      }, label));
    });
  }

  // --- summary ----------------------------------------------------------------------------------

  function histogram(bins, threshold) {
    const passed = bins.passed, failed = bins.failed;
    const totals = passed.map((p, i) => p + failed[i]);
    const w = 150, h = 40, max = Math.max(1, ...totals), bw = w / totals.length;
    const chart = svg("svg", { width: w, height: h + 12, viewBox: `0 0 ${w} ${h + 12}`, role: "img", class: "hist" });
    chart.appendChild(svg("title", {}, "scores in tenths from 0 to 1 — passed: " + passed.join(", ") + "; failed: " + failed.join(", ")));
    totals.forEach((total, i) => {
      const ph = (passed[i] / max) * h, fh = (failed[i] / max) * h;
      if (fh) chart.appendChild(svg("rect", { x: i * bw + 1, y: h - fh, width: bw - 2, height: fh, fill: "#cf222e" }));
      if (ph) chart.appendChild(svg("rect", { x: i * bw + 1, y: h - fh - ph, width: bw - 2, height: ph, fill: "#1a7f37" }));
    });
    const tx = Math.min(Math.max(threshold, 0), 1) * w;
    chart.appendChild(svg("line", { x1: tx, x2: tx, y1: 0, y2: h, stroke: "#1d2330", "stroke-dasharray": "2 2" }));
    chart.appendChild(svg("text", { x: 0, y: h + 11 }, "0"));
    chart.appendChild(svg("text", { x: w - 6, y: h + 11 }, "1"));
    return chart;
  }

  function passChart(atK, hatK) {
    const ks = Object.keys(atK || {}).map(Number).sort((x, y) => x - y);
    const w = 220, h = 70, pad = 16;
    const chart = svg("svg", { width: w, height: h + 14, viewBox: `0 0 ${w} ${h + 14}`, role: "img", class: "passk" });
    chart.appendChild(svg("title", {}, "pass@k (green) and pass^k (blue) for k = 1.." + ks.length));
    const x = (k) => pad + (ks.length > 1 ? ((k - ks[0]) / (ks[ks.length - 1] - ks[0])) * (w - 2 * pad) : 0);
    const y = (v) => h - v * (h - 6);
    for (const [series, color] of [[atK, "#1a7f37"], [hatK, "#0969da"]]) {
      if (!series) continue;
      const points = ks.map((k) => x(k) + "," + y(Number(series[String(k)]) || 0)).join(" ");
      chart.appendChild(svg("polyline", { points, fill: "none", stroke: color, "stroke-width": 2 }));
      for (const k of ks) chart.appendChild(svg("circle", { cx: x(k), cy: y(Number(series[String(k)]) || 0), r: 2.5, fill: color }));
    }
    for (const k of ks) chart.appendChild(svg("text", { x: x(k) - 3, y: h + 12 }, "k=" + k));
    return chart;
  }

  // Stable pass / flaky / stable fail / incomplete per case of a --num-runs run, flaky first (report/verdicts.py).
  function verdictTable(verdicts) {
    const table = el("table", { class: "verdicts" },
      el("thead", {}, el("tr", {}, ["case", "verdict", "runs passed", "pass rate", "95% interval"].map((h) => el("th", {}, h)))));
    const rows = pagedRows(table, verdicts, (v) => v.verdict, (v) => el("tr", { class: "verdict-" + v.verdict },
      el("td", {}, v.evalId), el("td", {}, v.verdict.replace("_", " ")),
      el("td", { class: "num" }, v.passedRuns + "/" + v.runs), el("td", { class: "num" }, pct(v.passRate)),
      el("td", { class: "num" }, fmt(v.wilsonLow) + "–" + fmt(v.wilsonHigh))));
    return el("div", {}, el("h3", {}, "stable and flaky cases"), rows);
  }

  // ``table`` with the first ROWS_SHOWN of ``items`` as rows (``row`` makes one) and a button
  // that adds the next ones, saying how many of each kind (``kind``) are not shown yet.
  function pagedRows(table, items, kind, row) {
    const body = el("tbody");
    table.appendChild(body);
    const more = el("button", { type: "button", class: "rows-more" });
    let shown = 0;
    function step() {
      const upto = Math.min(items.length, shown + ROWS_SHOWN);
      for (; shown < upto; shown++) body.appendChild(row(items[shown]));
      if (shown >= items.length) { more.remove(); return; }
      const left = new Map();
      for (let i = shown; i < items.length; i++) left.set(kind(items[i]), (left.get(kind(items[i])) || 0) + 1);
      more.textContent = "show " + Math.min(ROWS_SHOWN, items.length - shown) + " more · " + (items.length - shown) +
        " not shown: " + [...left].map(([name, count]) => count + " " + String(name).replace("_", " ")).join(", ");
    }
    more.addEventListener("click", step);
    step();
    return el("div", {}, table, shown < items.length ? more : null);
  }

  // The first view names every case that did not pass with its first reason (no click needed).
  function failuresFirst(run) {
    const failing = [];
    run.cases.forEach((row, index) => { if (row[2] !== "passed") failing.push(index); });
    failing.sort((a, b) => (run.cases[a][2] === "failed" ? 0 : 1) - (run.cases[b][2] === "failed" ? 0 : 1));
    const box = el("section", { class: "failures" });
    if (!failing.length) return box;
    box.appendChild(el("h2", {}, failing.length + " case" + (failing.length === 1 ? "" : "s") + " did not pass"));
    const list = el("ol", { class: "failing" });
    for (const index of failing.slice(0, FAILURES_SHOWN)) {
      const row = run.cases[index];
      const setId = run.evalSets[row[0]].evalSetId;
      list.appendChild(el("li", { class: "failing-case", "data-eval-id": row[1] },
        badge(row[2]), " ",
        el("a", { href: "#case/" + state.run + "/" + index, class: "case-link",
          on: { click: (event) => { event.preventDefault(); openRow(state.run, index); } } },
          el("span", { class: "fid" }, row[1])),
        el("span", { class: "muted" }, " · " + setId),
        el("div", { class: "first-reason" }, textOf(row[7] || ""))));
    }
    box.appendChild(list);
    if (failing.length > FAILURES_SHOWN) {
      box.appendChild(el("p", { class: "muted" }, "… and " + (failing.length - FAILURES_SHOWN) +
        " more: the Cases tab lists them all (status filter \"not passed\")."));
    }
    return box;
  }

  function renderSummary() {
    const run = runs[state.run];
    const root = document.getElementById("summary");
    root.textContent = "";
    // Every case is in one of the counts; not evaluated is apart from incomplete, as on the console.
    const total = Object.values(run.counts).reduce((sum, count) => sum + count, 0);
    root.appendChild(el("div", { class: "cards" },
      el("div", { class: "card" }, el("div", { class: "muted" }, "overall"), badge(run.overallStatus)),
      el("div", { class: "card" }, el("div", { class: "muted" }, "cases passed"),
        el("div", { class: "big" }, run.counts.passed + " / " + total)),
      el("div", { class: "card" }, el("div", { class: "muted" }, "failed"), el("div", { class: "big" }, run.counts.failed)),
      el("div", { class: "card" }, el("div", { class: "muted" }, "not evaluated"), el("div", { class: "big" }, run.counts.not_evaluated)),
      el("div", { class: "card" }, el("div", { class: "muted" }, "incomplete"), el("div", { class: "big" }, run.counts.incomplete)),
      run.durationSeconds != null && el("div", { class: "card" }, el("div", { class: "muted" }, "duration"),
        el("div", { class: "big" }, fmt(run.durationSeconds) + " s")),
    ));
    root.appendChild(failuresFirst(run));
    if (run.sources && run.sources.length) root.appendChild(el("p", { class: "muted" }, "from " + run.sources.join(", ")));
    for (const warning of run.warnings || []) root.appendChild(el("p", { class: "error" }, "warning: " + warning));
    for (const set of run.evalSets) {
      root.appendChild(el("h2", {}, set.evalSetId + " — " + pct(set.passRate) + " of " + set.cases + " cases passed" +
        (set.numRuns > 1 ? " · " + set.numRuns + " runs" : "") + (set.partial ? " · partial" : "") +
        (set.unevaluatedCases ? " · " + counted(set.unevaluatedCases, "case") + " the judge or agent left not evaluated" : "") +
        (set.judgeFailures ? " · " + set.judgeFailures + " judge turns not evaluated" : "")));
      const table = el("table", { class: "metrics" },
        el("thead", {}, el("tr", {}, ["metric", "threshold", "pass rate", "passed", "failed", "not evaluated", "average", "score distribution"].map((h) => el("th", {}, h)))));
      const body = el("tbody");
      for (const metric of set.metrics) {
        body.appendChild(el("tr", {},
          el("td", {}, metric.name), el("td", { class: "num" }, thresholdBeside(metric.threshold, metric.average)),
          el("td", { class: "num" }, pct(metric.passRate)), el("td", { class: "num" }, metric.passed),
          el("td", { class: "num" }, metric.failed), el("td", { class: "num" }, metric.notEvaluated),
          el("td", { class: "num" }, scoreBeside(metric.average, metric.threshold)), el("td", {}, histogram(metric.histogram, metric.threshold))));
      }
      table.appendChild(body);
      root.appendChild(table);
      if (set.passAtK && Object.keys(set.passAtK).length > 1) {
        root.appendChild(el("h3", {}, "pass@k and pass^k"));
        root.appendChild(passChart(set.passAtK, set.passHatK));
        const ks = Object.keys(set.passAtK);
        root.appendChild(el("table", {}, el("tbody", {},
          el("tr", {}, el("th", {}, "k"), ks.map((k) => el("td", { class: "num" }, k))),
          el("tr", {}, el("th", {}, "pass@k"), ks.map((k) => el("td", { class: "num" }, fmt(set.passAtK[k])))),
          el("tr", {}, el("th", {}, "pass^k"), ks.map((k) => el("td", { class: "num" }, fmt((set.passHatK || {})[k])))))));
      }
      if (set.verdicts && set.verdicts.length) root.appendChild(verdictTable(set.verdicts));
      const usage = usageObject(set.judgeUsage) && usageObject(set.judgeUsage.total);
      if (usage && (usage.calls || usage.cacheHits)) {
        const cost = costText(usage);
        root.appendChild(el("p", { class: "judge-usage" }, "judge: " + counted(savedCount(usage.calls), "call") + ", " +
          savedCount(usage.cacheHits) + " from cache, " + counted(savedCount(usage.retries), "retry", "retries") + ", " +
          savedCount(usage.promptTokens) + " prompt + " + savedCount(usage.completionTokens) + " completion tokens" +
          (cost ? " · " + cost : "")));
        const byMetric = Object.entries(usageObject(set.judgeUsage.byMetric) || {})
          .filter(([, u]) => usageObject(u) && (savedNumber(u.costUsd) > 0 || savedCount(u.unpricedCalls)))
          // Costliest first, as report/judge_cost.py's metric_costs_text orders them.
          .sort(([a, u], [b, v]) => savedNumber(v.costUsd) - savedNumber(u.costUsd) || (a < b ? -1 : a > b ? 1 : 0));
        if (byMetric.length) {
          root.appendChild(el("p", { class: "judge-cost" }, "judge cost by metric: " +
            byMetric.map(([name, u]) => name + " " + costText(u)).join(" · ")));
        }
      }
      const spent = agentText(set.agentUsage);
      if (spent) root.appendChild(el("p", { class: "agent-usage" }, "agent usage: " + spent));
    }
  }

  // --- comparison -------------------------------------------------------------------------------

  function side(s) {
    if (!s) return "—";
    return s.status.replace("_", " ") + (s.score === null || s.score === undefined ? "" : " " + fmt(s.score));
  }

  function renderComparison() {
    const root = document.getElementById("compare");
    root.textContent = "";
    const c = comparison;
    // A side cut short (partial) is never a clean verdict: diff says INCOMPLETE and exits 3.
    const word = c.incomplete ? "incomplete" : c.regressed ? "regressed" : "no regression";
    const cut = ["base", "new"].filter((side) => c.partial[side])
      .map((side) => " · " + side.toUpperCase() + " is partial (interrupted): " + c.notScored[side] + " not scored").join("");
    root.appendChild(el("p", { class: "verdict" }, el("span", { class: "badge " + (c.incomplete ? "k-unscored" : c.regressed ? "k-regressed" : "k-improved") }, word), " ",
      word.toUpperCase() + ": " + c.counts.regressions + " regressions, " + c.counts.improved + " improved, " +
      c.counts.appeared + " appeared, " + c.counts.disappeared + " disappeared, " + c.counts.unscored + " unscored · " + c.comparedCases + " cases and " +
      c.comparedMetrics + " metrics compared · tolerance " + fmt(c.tolerance) + cut));
    const table = el("table", { class: "changes" }, el("thead", {}, el("tr", {},
      ["change", "eval set", "case", "metric", "base", "new", "why"].map((h) => el("th", {}, h)))));
    const changes = pagedRows(table, c.changes, (change) => change.kind, (change) => {
      const target = change.new ? 1 : 0;
      return el("tr", { "data-kind": change.kind, on: { click: () => openByKey(target, change.evalSetId, change.evalId) } },
        el("td", {}, badge(change.kind, "k-")), el("td", {}, change.evalSetId), el("td", {}, change.evalId),
        el("td", { class: change.metricName ? "" : "muted" }, change.metricName || "(case)"),
        el("td", {}, side(change.base)), el("td", {}, side(change.new)), el("td", {}, change.reasons.join("; ")));
    });
    root.appendChild(el("h2", {}, "Changes (regressions first)"));
    root.appendChild(c.changes.length ? changes : el("p", { class: "muted" }, "No case or metric changed."));
    root.appendChild(el("h2", {}, "Metric averages"));
    const deltas = el("table", { class: "deltas" }, el("thead", {}, el("tr", {},
      ["eval set", "metric", "base", "new", "delta"].map((h) => el("th", {}, h)))));
    const dbody = el("tbody");
    for (const d of c.metricDeltas) {
      const delta = d.delta === null ? "—" : (d.delta > 0 ? "+" : "") + fmt(d.delta);
      dbody.appendChild(el("tr", {}, el("td", {}, d.evalSetId), el("td", {}, d.metric), el("td", { class: "num" }, fmt(d.base)),
        el("td", { class: "num" }, fmt(d.new)), el("td", { class: "num" + ((d.worseDown ? d.delta < 0 : d.delta > 0) ? " error" : "") }, delta)));
    }
    deltas.appendChild(dbody);
    root.appendChild(deltas);
  }

  function openByKey(run, evalSetId, evalId, caseRun) {
    const row = rowKey[run].get(evalSetId + "\u0000" + evalId);
    if (row !== undefined) openRow(run, row, caseRun);
  }

  // A case by its row in the run, every filter cleared so it is listed. A row the page knows
  // is opened by its place, never by its ids: two eval set files may share an evalSetId and
  // an evalId (the summary's failing case opened its passing namesake).
  function openRow(run, row, caseRun) {
    if (state.run !== run) { state.run = run; renderRunPicker(); renderSummary(); setupFilters(); }
    state.filters = { status: "", set: "", metric: "", change: "", query: "" };
    syncFilterInputs();
    applyFilters();
    showTab("cases");
    select(state.filtered.indexOf(row), true, caseRun);
  }

  // --- case list (only the visible rows exist in the DOM) ------------------------------------------

  function setupFilters() {
    const run = runs[state.run];
    const sets = document.getElementById("f-set");
    sets.length = 1;
    run.evalSets.forEach((set, i) => sets.appendChild(el("option", { value: String(i) }, set.evalSetId)));
    const metrics = document.getElementById("f-metric");
    metrics.length = 1;
    const names = new Set();
    for (const set of run.evalSets) for (const metric of set.metrics) names.add(metric.name);
    for (const name of names) metrics.appendChild(el("option", { value: name }, name));
    const change = document.getElementById("f-change");
    document.getElementById("f-change-label").hidden = !comparison;
    change.length = 1;
    if (comparison) for (const kind of KINDS) change.appendChild(el("option", { value: kind }, kind));
    state.filters.set = "";
    state.filters.metric = "";
    syncFilterInputs();
  }

  function syncFilterInputs() {
    document.getElementById("f-status").value = state.filters.status;
    document.getElementById("f-set").value = state.filters.set;
    document.getElementById("f-metric").value = state.filters.metric;
    document.getElementById("f-change").value = state.filters.change;
    document.getElementById("f-query").value = state.filters.query;
  }

  function searchable(run) {
    if (!lowered[run]) lowered[run] = runs[run].cases.map((row) => (row[1] + "\n" + row[5]).toLowerCase());
    return lowered[run];
  }

  function applyFilters() {
    const run = runs[state.run];
    const f = state.filters;
    const query = f.query.trim().toLowerCase();
    const texts = query ? searchable(state.run) : null;
    const setIndex = f.set === "" ? -1 : Number(f.set);
    const changes = caseChange[state.run];
    const out = [];
    const cases = run.cases;
    for (let i = 0; i < cases.length; i++) {
      const row = cases[i];
      if (f.status === "notpassed" ? row[2] === "passed" : f.status && row[2] !== f.status) continue;
      if (setIndex >= 0 && row[0] !== setIndex) continue;
      if (f.metric && row[4].indexOf(f.metric) < 0) continue;
      if (f.change && changes.get(run.evalSets[row[0]].evalSetId + "\u0000" + row[1]) !== f.change) continue;
      if (texts && texts[i].indexOf(query) < 0) continue;
      out.push(i);
    }
    state.filtered = out;
    state.selected = out.length ? Math.min(Math.max(state.selected, 0), out.length - 1) : -1;
    document.getElementById("f-count").textContent = out.length + " of " + cases.length + " cases";
    const list = document.getElementById("list");
    document.getElementById("spacer").style.height = out.length * ROW_H + "px";
    list.scrollTop = 0;
    state.selected = out.length ? 0 : -1;
    renderRows();
  }

  let renderedRange = "";
  function renderRows(force) {
    const list = document.getElementById("list");
    const spacer = document.getElementById("spacer");
    const run = runs[state.run];
    const first = Math.max(0, Math.floor(list.scrollTop / ROW_H) - OVERSCAN);
    const count = Math.ceil((list.clientHeight || 600) / ROW_H) + 2 * OVERSCAN;
    const last = Math.min(state.filtered.length, first + count);
    const range = [state.run, first, last, state.selected, state.filtered.length, state.filtered[0]].join(",");
    if (range === renderedRange && !force) return;
    renderedRange = range;
    spacer.textContent = "";
    const changes = caseChange[state.run];
    const fragment = document.createDocumentFragment();
    for (let pos = first; pos < last; pos++) {
      const index = state.filtered[pos];
      const row = run.cases[index];
      const setId = run.evalSets[row[0]].evalSetId;
      const kind = changes.get(setId + "\u0000" + row[1]);
      const node = el("div", {
        class: "row" + (pos === state.selected ? " sel" : ""), role: "option", "data-pos": pos, id: "row-" + pos,
        "data-eval-id": row[1], "aria-selected": String(pos === state.selected),
      }, badge(row[2]), kind ? badge(kind, "k-") : null, el("span", { class: "id" + (row[2] !== "passed" ? " full" : "") }, row[2] !== "passed" ? row[1] : clip(row[1], ROW_CHARS)),
        el("span", { class: "set" }, clip(setId, ROW_CHARS)), el("span", { class: "fails" }, clip(row[4].join(", "), ROW_CHARS)),
        el("span", { class: "score" }, fmt(row[3])));
      node.style.top = pos * ROW_H + "px";
      fragment.appendChild(node);
    }
    spacer.appendChild(fragment);
    // The list keeps the focus while its selection moves: it names the selected row, so a
    // screen reader says each case as it is reached.
    if (state.selected >= first && state.selected < last) list.setAttribute("aria-activedescendant", "row-" + state.selected);
    else list.removeAttribute("aria-activedescendant");
  }

  // ``caseRun``: the runId the opened case shows (its first run when none is given).
  function select(pos, open, caseRun) {
    if (pos < 0 || pos >= state.filtered.length) return;
    state.selected = pos;
    const list = document.getElementById("list");
    const top = pos * ROW_H;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = top + ROW_H - list.clientHeight;
    renderRows(true);
    if (open) openCase(state.run, state.filtered[pos], caseRun);
  }

  // --- case view --------------------------------------------------------------------------------

  function openCase(run, index, caseRun) {
    state.openRun = run;
    state.openRow = index;
    const root = document.getElementById("case");
    const data = detail(run, index);
    if (!data) {
      root.textContent = "";
      root.appendChild(el("p", { class: "muted" }, "loading…"));
      const again = () => { if (state.openRun === run && state.openRow === index) openCase(run, index, caseRun); };
      if (!INDEX.shards) {
        document.addEventListener("DOMContentLoaded", again, { once: true }); // still being parsed
        return;
      }
      Promise.all(missingChunks(run, index).map((number) => loadShard(run, number))).then(again, (error) => {
        if (state.openRun !== run || state.openRow !== index) return;
        root.textContent = "";
        root.appendChild(el("p", { class: "error" }, error.message));
      });
      return;
    }
    // The run asked for, else the first that did not pass: a case that failed in run 3 only
    // opened on run 1, every metric passed, under the reason of run 3.
    let which = data.runs.findIndex((result) => (result.runId || 1) === caseRun);
    if (which < 0) which = data.runs.findIndex((result) => result.finalEvalStatus !== "passed" ||
      (result.overallEvalMetricResults || []).some((metric) => metric.evalStatus === "not_evaluated"));
    renderCase(root, run, index, data, Math.max(which, 0));
    history.replaceState(null, "", "#case/" + run + "/" + index);
  }

  // A number and a count read from a saved file as report/judge_cost.py reads them (_number,
  // saved_count): anything but a finite number is 0, a count is whole; a usage is an object.
  // A hand-edited "costUsd": "0.01" or "unpricedModels": "x" that `show` reads stopped the page.
  function savedNumber(value) {
    return typeof value === "number" && isFinite(value) ? value : 0;
  }

  function savedCount(value) {
    return Math.trunc(savedNumber(value));
  }

  function usageObject(value) {
    return value && typeof value === "object" && !Array.isArray(value) ? value : null;
  }

  // A judgeUsage's cost as report/judge_cost.py words it: "$0.0123", never a partial sum as the whole.
  function usd(amount) {
    if (amount === 0) return "$0";
    if (amount >= 1) return "$" + amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    const digits = Math.max(2, 2 - Math.floor(Math.log10(Math.abs(amount))));
    const [whole, decimals] = amount.toFixed(digits).split(".");
    return "$" + whole + "." + decimals.replace(/0+$/, "").padEnd(2, "0");
  }

  function costText(usage) {
    usage = usageObject(usage);
    if (!usage || (!("costUsd" in usage) && !savedNumber(usage.unpricedCalls))) return "";
    return pricedText(usage, savedCount(usage.unpricedCalls), "call", savedCount(usage.unreportedCalls));
  }

  // As report/judge_cost.py's counted: "1 call", "2 calls", "1 retry", "2 retries".
  function counted(count, noun, plural) {
    return count + " " + (count === 1 ? noun : plural || noun + "s");
  }

  // As report/judge_cost.py's priced_text: the cost, and how many calls or turns have no cost,
  // said apart for those whose reply reported no token usage (no price would give theirs).
  function pricedText(usage, unpriced, noun, unreportedCount) {
    const cost = savedNumber(usage.costUsd);
    // A placeholder such as "(no single model named)" is not put in a second pair of brackets.
    const models = (Array.isArray(usage.unpricedModels) ? usage.unpricedModels : [])
      .map((m) => String(m))
      .map((n) => (n.startsWith("(") && n.endsWith(")") ? n.slice(1, -1) : n))
      .join(", ");
    const which = models ? " (" + models + ")" : "";
    if (!unpriced) return usd(cost);
    const unreported = Math.min(unreportedCount, unpriced);
    const noPrice = unpriced - unreported;
    if (cost === 0) {
      const parts = noPrice ? ["no price for " + counted(noPrice, noun)] : [];
      if (unreported) parts.push(counted(unreported, noun) + " reported no token usage");
      return "cost unknown: " + parts.join(", ") + which + (noPrice ? " (give --prices FILE)" : "");
    }
    const parts = noPrice ? [counted(noPrice, noun) + " without a price"] : [];
    if (unreported) parts.push(counted(unreported, noun) + " without reported token usage");
    return usd(cost) + " + " + parts.join(", ") + which;
  }

  // An agentUsage as report/agent_cost.py words it: what the agent under test spent.
  function agentText(usage) {
    usage = usageObject(usage);
    if (!usage || !savedCount(usage.turns)) return "";
    const calls = savedCount(usage.inferenceCalls);
    const count = (n) => savedCount(n).toLocaleString("en-US");
    let text = count(calls) + " model call" + (calls !== 1 ? "s" : "") + ", " + count(usage.inputTokens) +
      " input + " + count(usage.outputTokens) + " output tokens · " + pricedText(usage, savedCount(usage.unpricedTurns), "turn", 0);
    const missing = savedCount(usage.turnsWithoutUsage);
    if (missing) text += " · " + count(missing) + " turn" + (missing !== 1 ? "s" : "") + " without usage";
    return text;
  }

  function renderCase(root, run, index, data, which) {
    const row = runs[run].cases[index];
    const setId = runs[run].evalSets[row[0]].evalSetId;
    root.textContent = "";
    root.scrollTop = 0;
    root.appendChild(el("h2", { class: "case-title" }, badge(row[2]), " ", setId + " / " + row[1],
      el("span", { class: "muted" }, "  score " + fmt(row[3]))));
    if (data.runs.length > 1) {
      const picker = el("p", { class: "runs" }, "run: ");
      data.runs.forEach((caseRun, i) => picker.appendChild(el("button", {
        type: "button", "aria-pressed": String(i === which),
        on: { click: () => renderCase(root, run, index, data, i) },
      }, String(caseRun.runId || i + 1) + " " + (caseRun.finalEvalStatus || ""))));
      root.appendChild(picker);
    }
    const caseRun = data.runs[which];
    const marks = data.marks[which] || [];
    if (caseRun.errorMessage) root.appendChild(el("p", { class: "error" }, "error: " + caseRun.errorMessage));
    const caseCost = costText(caseRun.judgeUsage);
    if (caseCost) {
      const u = caseRun.judgeUsage;
      root.appendChild(el("p", { class: "judge-cost" }, "judge: " + counted(savedCount(u.calls), "call") + ", " +
        savedCount(u.cacheHits) + " from cache · " + caseCost));
    }
    const caseSpent = agentText(caseRun.agentUsage);
    if (caseSpent) root.appendChild(el("p", { class: "agent-cost" }, "agent usage: " + caseSpent));
    root.appendChild(el("h3", {}, "Metrics"));
    if (!(caseRun.overallEvalMetricResults || []).length) root.appendChild(el("p", { class: "muted" }, "no metric was evaluated"));
    const explained = data.explain[which] || {};
    for (const metric of caseRun.overallEvalMetricResults || []) {
      const block = metricBlock(metric, criterionOf(run, row[0], metric.metricName), true);
      const steps = explained[metric.metricName];
      if (steps) block.appendChild(explainBlock(steps, metric.metricName));
      root.appendChild(block);
    }
    (caseRun.evalMetricResultPerInvocation || []).forEach((turn, t) => {
      root.appendChild(turnBlock(turn, t, marks.filter((m) => m.turn === t), run, row[0]));
    });
  }

  function metricBlock(metric, summary, overall) {
    const block = el("div", { class: "metric", "data-metric": metric.metricName });
    block.appendChild(el("div", { class: "head" }, badge(metric.evalStatus || "not_evaluated"),
      el("span", { class: "mname" }, metric.metricName), el("span", {}, "score " + scoreBeside(metric.score, metric.threshold)),
      el("span", { class: "muted" }, "threshold " + thresholdBeside(metric.threshold, metric.score))));
    const details = metric.details || {};
    if (details.reason) block.appendChild(el("div", { class: "reason" }, details.reason));
    if (details.method) block.appendChild(el("div", { class: "gate-method" }, "decided by: " + details.method));
    // The gate counts its deciding methods on the metric result itself (turns carry "method").
    const methods = details.methods || metric.methods;
    if (methods && typeof methods === "object") {
      block.appendChild(el("div", { class: "gate-methods" }, "decided by: " +
        Object.entries(methods).map(([k, v]) => k + " " + v).join(", ")));
    }
    if (Array.isArray(details.samples)) block.appendChild(samplesTable(details));
    if (details.votes) block.appendChild(el("div", { class: "votes" }, "votes: " + (details.votes.pass || 0) + " pass, " + (details.votes.fail || 0) + " fail"));
    if (details.judge) {
      block.appendChild(el("div", { class: "judge-verdict" }, "judge: score " + fmt(details.judge.score) +
        ", pass " + String(details.judge.pass) + (details.judge.reasoning ? ": " + details.judge.reasoning : "")));
    }
    if (Array.isArray(details.rubricScores) && details.rubricScores.length) {
      block.appendChild(el("table", { class: "rubrics" }, el("thead", {}, el("tr", {}, el("th", {}, "rubric"), el("th", {}, "score"), el("th", {}, "reason"))),
        el("tbody", {}, details.rubricScores.map((r) => el("tr", {}, el("td", {}, r.id || ""), el("td", { class: "num" }, fmt(r.score)), el("td", {}, r.reason || ""))))));
    }
    if (details.renderedPrompt) {
      block.appendChild(el("details", { class: "prompt" }, el("summary", {}, "rendered template prompt"), el("pre", {}, details.renderedPrompt)));
    }
    const known = new Set(["reason", "score", "value", "method", "methods", "samples", "votes", "judge", "rubricScores", "renderedPrompt", "agreement", "unstable"]);
    const standard = new Set(["metricName", "score", "evalStatus", "threshold", "criterion", "details", "methods"]);
    const rest = Object.fromEntries([
      ...Object.entries(details).filter(([k]) => !known.has(k)),
      ...Object.entries(metric).filter(([k]) => !standard.has(k)),
    ]);
    if (Object.keys(rest).length) block.appendChild(el("details", {}, el("summary", {}, "details"), jsonTree(rest)));
    if (overall && summary && summary.criterion) {
      block.appendChild(el("details", { class: "criterion" }, el("summary", {}, "criterion"), jsonTree(summary.criterion)));
    }
    return block;
  }

  // The reason's explain steps: agenteval explain's own lines for this metric, or its command.
  function explainBlock(steps, name) {
    const box = el("details", { class: "explain", "data-metric": name },
      el("summary", { class: "explain-link" }, "explain: every step behind this reason"));
    if (steps.lines) box.appendChild(el("pre", { class: "explain-steps" }, steps.lines.join("\n")));
    else box.appendChild(el("p", { class: "muted" }, "a judge metric: its prompts, raw replies and votes are shown by"));
    box.appendChild(el("pre", { class: "explain-command" }, steps.command));
    return box;
  }

  function samplesTable(details) {
    const samples = details.samples;
    const passes = samples.filter((s) => s && s.status === "passed").length;
    const wrap = el("div", { class: "judge" });
    wrap.appendChild(el("div", { class: "agreement" }, samples.length + " samples · " + passes + "/" + samples.length + " pass" +
      (typeof details.agreement === "number" ? " · agreement " + fmt(details.agreement) : "") + (details.unstable ? " · unstable" : "")));
    wrap.appendChild(el("table", { class: "samples" },
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "verdict"), el("th", {}, "score"), el("th", {}, "reasoning"))),
      el("tbody", {}, samples.map((s, i) => el("tr", { class: "sample" }, el("td", { class: "num" }, i + 1),
        el("td", {}, badge((s && s.status) || "not_evaluated")), el("td", { class: "num" }, fmt(s && s.score)),
        el("td", {}, (s && s.reason) || ""))))));
    return wrap;
  }

  function toolList(tools, side, marks) {
    const box = el("div", { class: "tools-" + side });
    if (!tools || !tools.length) { box.appendChild(el("p", { class: "muted" }, "no tool calls")); return box; }
    for (const tool of tools) {
      const mine = marks.filter((m) => (side === "actual" ? m.actualTool === tool.name && (!m.actualId || m.actualId === tool.id)
        : m.expectedTool === tool.name && (!m.expectedId || m.expectedId === tool.id)));
      const argMarks = new Set(mine.filter((m) => m.part === "arguments").map((m) => m.path));
      const resultMarks = new Set(mine.filter((m) => m.part === "result").map((m) => m.path));
      box.appendChild(el("div", { class: "tool", "data-tool": tool.name },
        el("div", { class: "name" }, tool.name + (tool.id ? "  (" + tool.id + ")" : "")),
        el("div", { class: "muted" }, "arguments"), el("div", { class: "args" }, jsonTree(tool.arguments, argMarks)),
        tool.result !== undefined ? [el("div", { class: "muted" }, "result"), el("div", { class: "result" }, jsonTree(tool.result, resultMarks))] : null));
    }
    return box;
  }

  function turnBlock(turn, t, marks, run, setIndex) {
    const actual = turn.actualInvocation || {};
    const expected = turn.expectedInvocation || {};
    const block = el("section", { class: "turn", "data-turn": t + 1 });
    block.appendChild(el("h3", {}, "Turn " + (t + 1)));
    const user = messageText(actual.userContent) || messageText(expected.userContent);
    block.appendChild(el("div", { class: "muted" }, "user"));
    block.appendChild(el("div", { class: "text user" }, user || "(empty)"));
    if ((actual.tools && actual.tools.length) || (expected.tools && expected.tools.length) || marks.length) {
      block.appendChild(el("h4", {}, "Tool calls"));
      for (const m of marks) {
        block.appendChild(el("div", { class: "tool-diff" }, m.metric + ": " + m.part + " of " + m.expectedTool + " — " + m.what + " at ",
          el("span", { class: "diff-path" }, m.path), m.detail ? [": ", el("span", { class: "diff-values" }, m.detail)] : null));
      }
      block.appendChild(el("div", { class: "pair tools" },
        el("div", { class: "expected" }, el("h4", {}, "expected"), toolList(expected.tools, "expected", marks)),
        el("div", { class: "actual" }, el("h4", {}, "actual"), toolList(actual.tools, "actual", marks))));
    }
    const expectedText = messageText(expected.finalResponse);
    const actualText = messageText(actual.finalResponse);
    block.appendChild(el("h4", {}, "Final response"));
    block.appendChild(el("div", { class: "pair responses" },
      el("div", { class: "expected" }, el("h4", {}, "expected"), el("div", { class: "text final-expected" }, expectedText)),
      el("div", { class: "actual" }, el("h4", {}, "actual"), el("div", { class: "text final-actual" }, actualText))));
    if (expectedText || actualText) {
      block.appendChild(el("div", { class: "muted" }, "word diff (expected → actual)"));
      block.appendChild(wordDiff(expectedText, actualText));
    }
    const results = turn.evalMetricResults || [];
    if (results.length) {
      block.appendChild(el("h4", {}, "Metrics of this turn"));
      for (const metric of results) block.appendChild(metricBlock(metric, criterionOf(run, setIndex, metric.metricName), false));
    }
    return block;
  }

  // --- pages a command added (INDEX.pages: blocks of text, tables and case lists) ----------------

  // An item names a case of the page's run: its text links to the case view (open on the
  // run the item is about, when it names one: a disagreement of run 2 showed run 1).
  function pageItem(run, item) {
    const li = el("li", {});
    const row = item.case ? rowKey[run].get(item.case[0] + "\u0000" + item.case[1]) : undefined;
    if (row === undefined) li.appendChild(textOf(item.text));
    else {
      li.appendChild(el("a", { href: "#case/" + run + "/" + row, class: "case-link",
        on: { click: (event) => { event.preventDefault(); openByKey(run, item.case[0], item.case[1], item.case[2]); } } },
        item.text));
    }
    if (item.code) li.appendChild(el("div", {}, el("code", { class: "command" }, item.code)));
    return li;
  }

  function pageBlock(run, block) {
    if (block.heading !== undefined) return el("h2", {}, block.heading);
    if (block.subheading !== undefined) return el("h3", {}, block.subheading);
    if (block.text !== undefined) return el("p", {}, block.text);
    if (block.table) {
      return el("table", { class: block.class || null },
        el("thead", {}, el("tr", {}, block.table.head.map((cell) => el("th", {}, cell)))),
        el("tbody", {}, block.table.rows.map((row) =>
          el("tr", {}, row.map((cell, i) => el(i ? "td" : "th", i ? { class: "num" } : {}, cell))))));
    }
    return el("ul", { class: block.class || null }, (block.items || []).map((item) => pageItem(run, item)));
  }

  function renderPages() {
    const nav = document.getElementById("tabs");
    const main = document.querySelector("main");
    for (const page of PAGES) {
      const run = typeof page.run === "number" && runs[page.run] ? page.run : runs.length - 1;
      nav.appendChild(el("button", { type: "button", role: "tab", "data-tab": "page-" + page.id }, page.label));
      main.appendChild(el("section", { id: "page-" + page.id, class: "page", hidden: true },
        page.blocks.map((block) => pageBlock(run, block))));
    }
  }

  // --- wiring -----------------------------------------------------------------------------------

  function onKey(event) {
    const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
    if (event.key === "/" && !typing) { event.preventDefault(); showTab("cases"); document.getElementById("f-query").focus(); return; }
    if (state.tab !== "cases") return;
    if (event.key === "Escape") { document.getElementById("list").focus(); return; }
    // A focused control keeps its keys: a filter's arrows choose its option, Enter activates a
    // tab, button or summary (the list's keys took them all: Enter re-opened the case).
    if (event.target instanceof HTMLSelectElement) return;
    if (event.key === "Enter" && event.target instanceof Element && event.target.closest("button, a, summary")) return;
    if (typing && event.key !== "ArrowDown" && event.key !== "ArrowUp" && event.key !== "Enter") return;
    if (event.key === "ArrowDown" || (!typing && event.key === "j")) { event.preventDefault(); select(state.selected + 1, true); }
    else if (event.key === "ArrowUp" || (!typing && event.key === "k")) { event.preventDefault(); select(state.selected - 1, true); }
    else if (event.key === "Enter") { event.preventDefault(); select(state.selected, true); }
    else if (event.key === "PageDown") { event.preventDefault(); select(Math.min(state.filtered.length - 1, state.selected + 20), true); }
    else if (event.key === "PageUp") { event.preventDefault(); select(Math.max(0, state.selected - 20), true); }
  }

  function init() {
    renderPages();
    for (const button of document.querySelectorAll("#tabs button")) {
      button.addEventListener("click", () => { showTab(button.dataset.tab); history.replaceState(null, "", "#" + button.dataset.tab); });
    }
    if (comparison) document.querySelector('#tabs button[data-tab="compare"]').hidden = false;
    const bind = (id, key, ev) => document.getElementById(id).addEventListener(ev, (e) => { state.filters[key] = e.target.value; applyFilters(); });
    bind("f-status", "status", "change");
    bind("f-set", "set", "change");
    bind("f-metric", "metric", "change");
    bind("f-change", "change", "change");
    bind("f-query", "query", "input");
    let pending = false;
    document.getElementById("list").addEventListener("scroll", () => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => { pending = false; renderRows(); });
    });
    document.getElementById("list").addEventListener("click", (event) => {
      const node = event.target.closest(".row");
      if (node) select(Number(node.dataset.pos), true);
    });
    document.addEventListener("keydown", onKey);
    renderRunPicker();
    renderSummary();
    if (comparison) renderComparison();
    setupFilters();
    applyFilters();
    const hash = location.hash.replace(/^#/, "");
    const opened = /^case\/(\d+)\/(\d+)$/.exec(hash);
    if (opened && runs[Number(opened[1])] && runs[Number(opened[1])].cases[Number(opened[2])]) {
      openRow(Number(opened[1]), Number(opened[2]));
    } else {
      showTab(TABS.indexOf(hash) >= 0 && (hash !== "compare" || comparison) ? hash : (comparison ? "compare" : "summary"));
    }
    window.addEventListener("resize", () => renderRows(true));
    // Milliseconds from navigation start until the list answers input (bench/html_report.py reads it).
    document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
    document.documentElement.dataset.ready = "1";
  }

  init();
})();
