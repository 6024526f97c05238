// The orchestrator's page: the job list (/), one job (/jobs/<id>) and the workers (/workers),
// drawn from /api/jobs, /api/jobs/<id> and /api/workers, polled every second. A job's plot is
// /jobs/<id>/plot.svg, put inline, redrawn every two seconds while the job runs (its rows so
// far); a sweep job's page shows its table (/api/jobs/<id>/table) and a scatter plot of two of
// its columns (/jobs/<id>/scatter.svg), chosen with two selects, redrawn as variants finish.
// A job's page has two tabs: its results and its log (/api/jobs/<id>/logs).
"use strict";

const app = document.getElementById("app");

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
}

async function getJson(url) {
  const r = await fetch(url, { cache: "no-store" });
  if (!r.ok) throw new Error(url + ": " + r.status + " " + (await r.text()));
  return r.json();
}

// A moment, short: the time alone today, else the date too (ISO order, local time).
function when(ms) {
  if (!(ms > 0)) return "";
  const d = new Date(ms), now = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  const time = pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  if (d.toDateString() === now.toDateString()) return time;
  return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + time;
}

function seconds(s) {
  return s < 60 ? s.toFixed(1) + " s" : (s / 60).toFixed(1) + " min";
}

function progress(job) {
  const pct = Math.round(job.progress * 100);
  const bar = el("span", { class: "bar" }, el("span", { style: "width:" + pct + "%" }));
  return el("span", {}, bar, pct + " %");
}

function state(job) {
  return el("span", { class: "state " + job.state }, job.state);
}

function table(headers, rows) {
  const head = el("tr", {}, ...headers.map((h) => el("th", {}, h)));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows));
}

// A sweep's variants: "3/6 variants, 1 failed".
function variants(sweep) {
  return sweep.variants_done + "/" + sweep.variants_total + " variants, " +
    sweep.variants_failed + " failed";
}

// A sweep's variants in full: "3 of 6 done, 1 failed, 3 to go".
function variantsInFull(sweep) {
  return sweep.variants_done + " of " + sweep.variants_total + " done, " + sweep.variants_failed +
    " failed, " + (sweep.variants_total - sweep.variants_done) + " to go";
}

// s of wall time until a running job is likely done: a sweep's own estimate, else from the
// progress so far (none before a second and a percent: no rate yet).
function eta(job) {
  if (job.finished || job.state !== "running") return 0;
  if (job.sweep) return job.sweep.eta_seconds;
  if (job.progress < 0.01 || job.wall_seconds < 1) return 0;
  return job.wall_seconds * (1 - job.progress) / job.progress;
}

// A calibration job's progress: its iteration, runs and best objective, the best point so far,
// and once it succeeded the objective per iteration.
function fitRows(fit, row) {
  const number = (x) => (x === null ? "-" : String(Number(x.toPrecision(6))));
  const rows = [...row("fit", "iteration " + fit.iteration + ", " + fit.evaluations +
    " runs, best objective " + number(fit.best_objective)),
    ...row("parameters", Object.entries(fit.parameters).map(([name, value]) =>
      name + " = " + number(value)).join(", ") || "-")];
  if (fit.history.length > 0) {
    rows.push(...row("objective per iteration", fit.history.map((h) =>
      h.iteration + ": " + number(h.objective)).join(", ")));
  }
  return rows;
}

// How far a job got, as the rows of its details: a sweep's variants, a training job's epochs, a
// simulation's simulated time and steps; then the ETA while it runs.
function howFar(job) {
  const row = (term, value) => [el("dt", {}, term), el("dd", {}, value)];
  const rows = job.sweep ? row("variants", variantsInFull(job.sweep))
    : job.fit ? fitRows(job.fit, row)
    : job.training ? row("epochs", job.training.epoch + " of " + job.training.epochs +
      ", loss " + (job.training.loss === null ? "-" : Number(job.training.loss.toPrecision(4))))
      : [...row("simulated time", job.time + " s of [" + job.start_time + ", " + job.stop_time +
        "] s"), ...row("steps", job.steps_accepted + " accepted, " + job.steps_rejected +
        " rejected, " + job.iterations + " iterations")];
  const left = eta(job);
  return left > 0 ? [...rows, ...row("ETA", seconds(left))] : rows;
}

function jobRow(job) {
  return el("tr", { class: "job", "data-job": job.id },
    el("td", {}, el("a", { href: "/jobs/" + encodeURIComponent(job.id) }, job.name || "(unnamed)")),
    el("td", {}, job.id), el("td", {}, state(job)), el("td", {}, progress(job)),
    el("td", { class: "num" }, job.sweep ? variants(job.sweep) : job.time.toPrecision(4) + " s"),
    el("td", { class: "num" }, job.steps_accepted),
    el("td", {}, when(job.submitted_unix_ms)), el("td", {}, when(job.finished_unix_ms)),
    el("td", { class: "num" }, seconds(job.wall_seconds)));
}

function workersTable(workers) {
  if (workers.length === 0) return el("p", { class: "muted" }, "No worker attached.");
  return table(["worker", "host", "pid", "labels", "state", "job", "unit"], workers.map((w) =>
    el("tr", { class: "worker" }, el("td", {}, w.id), el("td", {}, w.host),
      el("td", { class: "num" }, w.pid), el("td", {}, w.labels.join(", ")),
      el("td", {}, w.busy ? "busy" : "idle"),
      el("td", {}, w.job ? el("a", { href: "/jobs/" + encodeURIComponent(w.job) }, w.job) : ""),
      el("td", {}, w.unit))));
}

async function showJobs() {
  const [jobs, workers] = await Promise.all([getJson("/api/jobs"), getJson("/api/workers")]);
  const list = jobs.jobs.length === 0 ? el("p", { class: "muted" }, "No job yet.")
    : el("div", { class: "wide" }, table(["name", "id", "state", "progress", "simulated",
      "steps", "submitted", "finished", "wall time"], jobs.jobs.map(jobRow)));
  app.replaceChildren(el("h1", {}, "Jobs"), list, el("h2", {}, "Workers"),
    workersTable(workers.workers));
  // Whether the job table fits the window without scrolling sideways (the tests read it).
  list.setAttribute("data-fits", String(list.scrollWidth <= list.clientWidth));
  return true;
}

async function showWorkers() {
  const workers = await getJson("/api/workers");
  app.replaceChildren(el("h1", {}, "Workers"), workersTable(workers.workers));
  return true;
}

let plotShown = false;  // a finished job's results are drawn once
let plotDrawn = 0;  // Date.now() of a running job's last plot
let plotDraws = 0;  // how often a running job's plot was drawn in this page
let sweepDone = -1;  // variants done when a sweep's table was last drawn
const scatterChoice = {};  // the columns chosen for the scatter plot (x, y), kept on redraws
let tab = location.hash === "#log" ? "log" : "results";  // the job page's tab shown
let logDrawn = 0;  // Date.now() of the log's last read (-1: read for good, the job ended)

// One line of a job's log, as `cosimo logs` prints it.
function logLine(line) {
  const where = line.unit + " t=" + (line.time === null ? "-" : line.time);
  return line.source === "fmi"
    ? where + " " + line.status + (line.category ? " [" + line.category + "]" : "") + " " +
      line.text
    : where + " " + line.source + ": " + line.text;
}

// The job's log in `box`: every two seconds while it runs, once more when it has ended.
async function showLog(job, box) {
  // Once more when the job has ended, whenever the last read was: its last lines.
  if (logDrawn < 0 || (!job.finished && Date.now() - logDrawn < 2000)) return;
  logDrawn = job.finished ? -1 : Date.now();
  const log = await getJson("/api/jobs/" + encodeURIComponent(job.id) + "/logs");
  box.replaceChildren(log.lines.length === 0
    ? el("p", { class: "muted" }, "The units have said nothing" + (job.finished ? "." : " yet."))
    : el("pre", { class: "log" }, log.lines.map(logLine).join("\n")));
}

// The tabs of a job's page: each shows its box and hides the other.
function tabs(boxes) {
  const buttons = Object.keys(boxes).map((name) => {
    const b = el("button", { type: "button", class: name === tab ? "tab active" : "tab",
      "data-tab": name }, name === "results" ? "Results" : "Log");
    b.addEventListener("click", () => {
      tab = name;
      history.replaceState(null, "", name === "log" ? "#log" : location.pathname);
      for (const [n, box] of Object.entries(boxes)) box.hidden = n !== tab;
      for (const other of buttons) other.className = other === b ? "tab active" : "tab";
    });
    return b;
  });
  for (const [n, box] of Object.entries(boxes)) box.hidden = n !== tab;
  return el("nav", { class: "tabs" }, ...buttons);
}

// A table cell: numbers to 6 significant digits (the full value in its title), NaN (null in
// the JSON) as "nan".
function cell(v) {
  if (v === null) return el("td", { class: "num" }, "nan");
  if (typeof v !== "number") return el("td", {}, String(v));
  return el("td", { class: "num", title: String(v) }, String(Number(v.toPrecision(6))));
}

// A sweep's table: one row per variant, the failed ones marked.
function sweepTable(id, data) {
  const status = data.columns.indexOf("status");
  const rows = data.rows.map((row) =>
    el("tr", { class: row[status] === "FAILED" ? "variant failed" : "variant" }, ...row.map(cell)));
  const parts = [el("div", { class: "scroll" }, table(data.columns, rows))];
  if (data.total_rows > data.rows.length) {
    parts.push(el("p", { class: "muted" }, "The first " + data.rows.length + " of " +
      data.total_rows + " rows; cosimo results " + id + " --out table.csv writes them all."));
  }
  return parts;
}

// The scatter plot of one numeric column against another: a KPI against a parameter at first.
function scatterPlot(id, table) {
  const select = (name) => el("select", { id: "scatter-" + name, name: name },
    ...table.numeric.map((c) => el("option", { value: c }, c)));
  const x = select("x"), y = select("y");
  const numeric = (c) => table.numeric.includes(c);
  x.value = numeric(scatterChoice.x) ? scatterChoice.x
    : table.parameters.find(numeric) || table.numeric[0];
  y.value = numeric(scatterChoice.y) ? scatterChoice.y
    : table.kpis.find(numeric) || table.numeric[Math.min(1, table.numeric.length - 1)];
  const img = el("img", { id: "scatter-plot", alt: "scatter plot" });
  const note = el("p", { class: "muted" });
  const draw = () => {
    scatterChoice.x = x.value;
    scatterChoice.y = y.value;
    note.textContent = "";
    img.src = "/jobs/" + encodeURIComponent(id) + "/scatter.svg?x=" + encodeURIComponent(x.value) +
      "&y=" + encodeURIComponent(y.value);
  };
  // An <img> shows no error text: fetch it for the message.
  img.addEventListener("error", async () => {
    const r = await fetch(img.src);
    note.textContent = r.ok ? "The plot could not be shown." : await r.text();
  });
  x.addEventListener("change", draw);
  y.addEventListener("change", draw);
  draw();
  return [el("p", { class: "controls" }, el("label", {}, "x ", x), el("label", {}, "y ", y)),
    img, note];
}

// A sweep's results: its scatter plot and its table (while it runs, the variants done so far).
async function showSweep(job, box) {
  const table = await getJson("/api/jobs/" + encodeURIComponent(job.id) + "/table");
  if (table.numeric.length === 0) {
    box.replaceChildren(...sweepTable(job.id, table));
    return;
  }
  box.replaceChildren(el("h3", {}, "Scatter plot"), ...scatterPlot(job.id, table),
    el("h3", {}, "Table: one row per variant"), ...sweepTable(job.id, table));
}

// A running job's plot, its rows so far, every two seconds (nothing before its first rows).
async function showRunningPlot(id, plot) {
  if (Date.now() - plotDrawn < 2000) return;
  plotDrawn = Date.now();
  // Its rows so far (issue 42; without ?partial=1 a running job has no results).
  const r = await fetch("/jobs/" + encodeURIComponent(id) + "/plot.svg?partial=1",
    { cache: "no-store" });
  if (r.ok) {
    plot.innerHTML = await r.text();
    plot.setAttribute("data-live", "true");
    plot.setAttribute("data-draws", String(++plotDraws));
  } else if (!plot.hasAttribute("data-live")) {
    plot.replaceChildren(el("p", { class: "muted" }, "The plot appears with the first rows."));
  }
}

async function showJob(id) {
  const job = await getJson("/api/jobs/" + encodeURIComponent(id));
  const details = el("dl", {},
    el("dt", {}, "state"), el("dd", {}, state(job)),
    el("dt", {}, "owner"), el("dd", {}, job.owner || "-"),
    el("dt", {}, "progress"), el("dd", {}, progress(job)),
    ...howFar(job),
    el("dt", {}, "submitted"), el("dd", {}, when(job.submitted_unix_ms)),
    el("dt", {}, "finished"), el("dd", {}, when(job.finished_unix_ms) || "not yet"),
    el("dt", {}, "wall time"), el("dd", {}, seconds(job.wall_seconds)));
  const parts = [el("h1", { class: "job", "data-job": job.id },
    (job.name || "(unnamed)") + " — job " + job.id), details];
  // A failure's message in red, a queued job's reason or a sweep's summary plain.
  if (job.message) parts.push(el("p", { class: "message " + job.state }, job.message));
  // A sweep's results are its table, not a time series.
  const plot = document.getElementById(job.sweep ? "sweep" : "plot") ||
    el("div", { id: job.sweep ? "sweep" : "plot" });
  const logBox = document.getElementById("log") || el("div", { id: "log" });
  parts.push(tabs({ results: plot, log: logBox }), plot, logBox);
  app.replaceChildren(...parts);
  await showLog(job, logBox);
  if (job.state === "succeeded" && !plotShown) {
    plotShown = true;
    if (job.sweep) {
      await showSweep(job, plot);
    } else {
      // A calibration's plot: its measured data against its best run.
      const r = await fetch("/jobs/" + encodeURIComponent(id) + (job.fit ? "/fit.svg" : "/plot.svg"));
      plot.innerHTML = r.ok ? await r.text() : "";
      if (!r.ok) plot.append(el("p", { class: "muted" }, await r.text()));
    }
  } else if (job.state === "running" && job.sweep) {
    if (job.sweep.variants_done !== sweepDone) {
      sweepDone = job.sweep.variants_done;
      await showSweep(job, plot);
    }
  } else if (job.state === "running" && job.fit) {
    plot.replaceChildren(el("p", { class: "muted" },
      "The measured data against the best run appear once the fit succeeded."));
  } else if (job.state === "running" && !job.training) {
    await showRunningPlot(id, plot);
  } else if (!job.finished) {
    plot.replaceChildren(el("p", { class: "muted" }, job.sweep
      ? "The table and a scatter plot of it grow as its variants finish."
      : "The plot appears when the job runs."));
  } else if (job.state !== "succeeded") {
    plot.replaceChildren(el("p", { class: "muted" }, "No results: the job " + job.state + "."));
  }
  return !job.finished;  // poll on while the job runs
}

function route() {
  const path = location.pathname;
  const job = path.match(/^\/jobs\/([^/]+)$/);
  if (job) return () => showJob(decodeURIComponent(job[1]));
  if (path === "/workers") return showWorkers;
  return showJobs;
}

async function poll(view) {
  let again = true;
  try {
    again = await view();
  } catch (e) {
    app.replaceChildren(el("p", { class: "message" }, e.message));
  }
  if (again) setTimeout(() => poll(view), 1000);
}

poll(route());
