// memory-cli dashboard: CSRF header on every htmx request, selection that survives the
// 5-second refresh, a refresh that waits while a row is being edited, error toasts, charts.
(function () {
  "use strict";
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var selected = new Set();

  document.addEventListener("htmx:configRequest", function (e) {
    e.detail.headers["X-CSRF-Token"] = csrf;
  });

  function toast(text, bad) {
    var t = document.getElementById("toast");
    if (!t) return;
    t.textContent = text;
    t.className = "show" + (bad ? " bad" : "");
    clearTimeout(t._timer);
    t._timer = setTimeout(function () { t.className = ""; }, bad ? 6000 : 2500);
  }

  document.addEventListener("htmx:responseError", function (e) {
    var msg = "request failed (" + e.detail.xhr.status + ")";
    try { msg = JSON.parse(e.detail.xhr.responseText).detail || msg; } catch (err) { /* not JSON */ }
    toast(msg, true);
  });
  document.addEventListener("htmx:sendError", function () { toast("the server did not answer", true); });

  // The periodic refresh of the memories table must not wipe an edit in progress.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var elt = e.detail.elt;
    if (elt && elt.id === "rows" && e.detail.requestConfig && e.detail.requestConfig.triggeringEvent
        && document.querySelector("tr.editing")) {
      e.preventDefault();
    }
  });

  // Keep the person's scroll position across the refresh (the rows are replaced wholesale).
  var savedScroll = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "rows") {
      var wrap = document.querySelector(".tablewrap");
      savedScroll = { wrap: wrap ? wrap.scrollTop : 0, x: window.scrollX, y: window.scrollY };
    }
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "rows" && savedScroll) {
      var wrap = document.querySelector(".tablewrap");
      if (wrap) wrap.scrollTop = savedScroll.wrap;
      window.scrollTo(savedScroll.x, savedScroll.y);
      savedScroll = null;
    }
  });

  function syncSelection() {
    var boxes = document.querySelectorAll('#rows input[name="ids"]');
    var onPage = 0, checkedOnPage = 0;
    boxes.forEach(function (b) {
      onPage++;
      b.checked = selected.has(b.value);
      if (b.checked) checkedOnPage++;
    });
    var all = document.getElementById("select-all");
    if (all) all.checked = onPage > 0 && checkedOnPage === onPage;
    var count = document.getElementById("selected-count");
    if (count) count.textContent = selected.size + " selected";
    document.querySelectorAll("[data-bulk]").forEach(function (b) { b.disabled = selected.size === 0; });
  }

  document.addEventListener("change", function (e) {
    var t = e.target;
    if (t.name === "ids" && t.closest("#rows")) {
      if (t.checked) selected.add(t.value); else selected.delete(t.value);
      syncSelection();
    } else if (t.id === "select-all") {
      document.querySelectorAll('#rows input[name="ids"]').forEach(function (b) {
        if (t.checked) selected.add(b.value); else selected.delete(b.value);
      });
      syncSelection();
    }
  });

  // Bulk requests carry every selected id, including ones on other pages.
  document.addEventListener("htmx:configRequest", function (e) {
    if (e.detail.elt && e.detail.elt.hasAttribute("data-bulk")) {
      e.detail.parameters.ids = Array.from(selected);
    }
  });
  // (the bulk buttons are replaced by the swap, so their own later events never reach document)
  document.addEventListener("htmx:beforeSwap", function (e) {
    var elt = e.detail.requestConfig && e.detail.requestConfig.elt;
    if (elt && elt.hasAttribute("data-bulk") && e.detail.xhr.status === 200) {
      selected.clear();
    }
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (e.detail.elt && e.detail.elt.id === "add-form" && e.detail.successful) {
      e.detail.elt.reset();
      var d = e.detail.elt.closest("details");
      if (d) d.open = false;
    }
  });
  document.addEventListener("htmx:afterSettle", syncSelection);
  document.addEventListener("DOMContentLoaded", syncSelection);

  // Overview charts (Chart.js, shipped in /static).
  function charts() {
    var node = document.getElementById("overview-data");
    if (!node || typeof Chart === "undefined") return;
    var data = JSON.parse(node.textContent);
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    Chart.defaults.color = "#6b7285";
    var e = data.enforcement;
    new Chart(document.getElementById("chart-enforcement"), {
      type: "bar",
      data: {
        labels: e.days.map(function (d) { return d.slice(5); }),
        datasets: [
          { label: "blocks", data: e.blocks, backgroundColor: "#c2303a" },
          { label: "warns", data: e.warns, backgroundColor: "#f0b429" },
          { label: "violations", data: e.violations, backgroundColor: "#7c3aed" }
        ]
      },
      options: { maintainAspectRatio: false, animation: false, scales: { x: { stacked: true, grid: { display: false } },
        y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } }, plugins: { legend: { position: "bottom" } } }
    });
    var lat = data.hook_latency_ms || {};
    var events = Object.keys(lat);
    var latCanvas = document.getElementById("chart-latency");
    if (latCanvas && events.length) {
      new Chart(latCanvas, {
        type: "bar",
        data: { labels: events, datasets: [
          { label: "p50", data: events.map(function (k) { return lat[k].p50; }), backgroundColor: "#818cf8" },
          { label: "p95", data: events.map(function (k) { return lat[k].p95; }), backgroundColor: "#4338ca" }
        ] },
        options: { maintainAspectRatio: false, animation: false, indexAxis: "y",
          plugins: { legend: { position: "bottom" } }, scales: { x: { beginAtZero: true } } }
      });
    }
    var f = data.funnel;
    new Chart(document.getElementById("chart-funnel"), {
      type: "bar",
      data: { labels: ["captured", "proposed", "approved"], datasets: [
        { label: "corrections", data: [f.captured, f.proposed, f.approved],
          backgroundColor: ["#94a3b8", "#f0b429", "#2f855a"] }
      ] },
      options: { maintainAspectRatio: false, animation: false, plugins: { legend: { display: false } },
        scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } }
    });
    document.body.setAttribute("data-charts", "ready");
  }
  document.addEventListener("DOMContentLoaded", charts);
})();
