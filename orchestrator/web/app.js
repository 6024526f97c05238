// The orchestrator's page: the job list (/), one job (/jobs/<id>) and the workers (/workers),
// drawn from /api/jobs, /api/jobs/<id> and /api/workers, polled every second. A job's plot is
// /jobs/<id>/plot.svg, put inline: while it runs, of its rows so far (?partial=1), redrawn every
// 2 s, with an ETA beside its progress; a finished sweep job's page shows its table
// (/api/jobs/<id>/table) and a scatter plot of two of its columns (/jobs/<id>/scatter.svg),
// chosen with two selects.
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

function when(ms) {
  return ms > 0 ? new Date(ms).toLocaleString() : "";
}

function seconds(s) {
  return s < 60 ? s.toFixed(1) + " s" : (s / 60).toFixed(1) + " min";
}

function progress(job) {
  const pct = Math.round(job.progress * 100);
  const bar = el("span", { class: "bar" }, el("span", { style: "width:" + pct + "%" }));
  return el("span", {}, bar, pct + " %");
}

// The time left, from the rate so far: none until there is one (a second of running and a
// percent done), as `cosimo watch` says it.
function eta(job) {
  if (job.state !== "running" || job.sweep || job.training) return "";
  const f = job.progress;
  if (!(f >= 0.01 && f < 1 && job.wall_seconds >= 1)) return "";
  return ", ETA " + seconds(job.wall_seconds * (1 - f) / f);
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
    : table(["name", "id", "state", "progress", "simulated", "steps", "submitted", "finished",
      "wall time"], jobs.jobs.map(jobRow));
  app.replaceChildren(el("h1", {}, "Jobs"), list, el("h2", {}, "Workers"),
    workersTable(workers.workers));
  return true;
}

async function showWorkers() {
  const workers = await getJson("/api/workers");
  app.replaceChildren(el("h1", {}, "Workers"), workersTable(workers.workers));
  return true;
}

let plotShown = false;
let partialPolls = 0;  // the polls of a running job's page so far
let partialDraws = 0;  // how often its plot was drawn

// A running job's plot of its rows so far (issue 42), every other poll (2 s): the page is not
// reloaded, the plot is replaced in place (data-draws counts it).
async function showRowsSoFar(id, plot) {
  if (partialPolls++ % 2 !== 0) return;
  const r = await fetch("/jobs/" + encodeURIComponent(id) + "/plot.svg?partial=1",
    { cache: "no-store" });
  if (r.ok) {
    plot.innerHTML = await r.text();
    plot.setAttribute("data-partial", "true");
    plot.setAttribute("data-draws", String(++partialDraws));
  } else if (!plot.firstChild) {
    plot.replaceChildren(el("p", { class: "muted" }, "The plot appears with the first rows."));
  }
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
  x.value = table.parameters.find(numeric) || table.numeric[0];
  y.value = table.kpis.find(numeric) || table.numeric[Math.min(1, table.numeric.length - 1)];
  const img = el("img", { id: "scatter-plot", alt: "scatter plot" });
  const note = el("p", { class: "muted" });
  const draw = () => {
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

// A finished sweep's results, once: its scatter plot and its table.
async function showSweep(job, box) {
  const table = await getJson("/api/jobs/" + encodeURIComponent(job.id) + "/table");
  if (table.numeric.length === 0) {
    box.replaceChildren(...sweepTable(job.id, table));
    return;
  }
  box.replaceChildren(el("h3", {}, "Scatter plot"), ...scatterPlot(job.id, table),
    el("h3", {}, "Table: one row per variant"), ...sweepTable(job.id, table));
}

async function showJob(id) {
  const job = await getJson("/api/jobs/" + encodeURIComponent(id));
  const details = el("dl", {},
    el("dt", {}, "state"), el("dd", {}, state(job)),
    el("dt", {}, "owner"), el("dd", {}, job.owner || "-"),
    el("dt", {}, "progress"), el("dd", {}, progress(job), eta(job)),
    ...(job.sweep ? [el("dt", {}, "variants"), el("dd", {}, variants(job.sweep) +
      (job.sweep.eta_seconds > 0 ? ", ETA " + seconds(job.sweep.eta_seconds) : ""))] : []),
    el("dt", {}, "simulated time"),
    el("dd", {}, job.time + " s of [" + job.start_time + ", " + job.stop_time + "] s"),
    el("dt", {}, "steps"),
    el("dd", {}, job.steps_accepted + " accepted, " + job.steps_rejected + " rejected, " +
      job.iterations + " iterations"),
    el("dt", {}, "submitted"), el("dd", {}, when(job.submitted_unix_ms)),
    el("dt", {}, "finished"), el("dd", {}, when(job.finished_unix_ms) || "not yet"),
    el("dt", {}, "wall time"), el("dd", {}, seconds(job.wall_seconds)));
  const parts = [el("h1", { class: "job", "data-job": job.id },
    (job.name || "(unnamed)") + " — job " + job.id), details];
  if (job.message) parts.push(el("p", { class: "message" }, job.message));
  // A sweep's results are its table, not a time series.
  const plot = document.getElementById(job.sweep ? "sweep" : "plot") ||
    el("div", { id: job.sweep ? "sweep" : "plot" });
  parts.push(el("h2", {}, "Results"), plot);
  app.replaceChildren(...parts);
  if (job.state === "succeeded" && !plotShown) {
    plotShown = true;
    plot.removeAttribute("data-partial");
    plot.removeAttribute("data-draws");
    if (job.sweep) {
      await showSweep(job, plot);
    } else {
      const r = await fetch("/jobs/" + encodeURIComponent(id) + "/plot.svg");
      plot.innerHTML = r.ok ? await r.text() : "";
      if (!r.ok) plot.append(el("p", { class: "muted" }, await r.text()));
    }
  } else if (job.state === "running" && !job.sweep && !job.training) {
    await showRowsSoFar(id, plot);
  } else if (!job.finished) {
    plot.replaceChildren(el("p", { class: "muted" }, job.sweep
      ? "The table and a scatter plot of it appear when the sweep succeeds."
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
