/* The script of every page of the OrderBench results site (benchmark/report/site.py):
   sorting the tables by any column, the protocol and budget filters, the charts
   (Vega-Embed, shipped beside this file) and the browser of a run's test documents, whose
   data comes in chunks: scripts that hand it over with OrderBench.chunk(key, data), since
   a page opened from file:// may run the scripts beside it but not read JSON files. */
(function () {
  "use strict";
  const OB = (window.OrderBench = window.OrderBench || {});
  const loaded = {};
  const waiting = {};
  const root = document.body.dataset.root || "";

  OB.chunk = function (key, data) {
    loaded[key] = data;
    (waiting[key] || []).forEach((w) => w.resolve(data));
    delete waiting[key];
  };

  /* The data of `key` (its path in the site, without .js), loaded once. */
  function load(key) {
    if (key in loaded) return Promise.resolve(loaded[key]);
    return new Promise((resolve, reject) => {
      const first = !waiting[key];
      (waiting[key] = waiting[key] || []).push({ resolve, reject });
      if (!first) return;
      const script = document.createElement("script");
      script.src = root + key + ".js";
      script.onerror = () => {
        (waiting[key] || []).forEach((w) => w.reject(new Error("cannot load " + script.src)));
        delete waiting[key];
      };
      document.head.appendChild(script);
    });
  }

  /* -- tables: a click on a header sorts the rows by that column, again the other way -- */
  function cellValue(row, column) {
    const cell = row.children[column];
    if (!cell) return null;
    const text = cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent.trim();
    if (text === "" || text === "–") return null;
    const number = Number(text);
    return Number.isNaN(number) ? text.toLowerCase() : number;
  }

  function compare(a, b) {
    if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }

  function sortBy(table, column, header) {
    const descending = header.getAttribute("aria-sort") === "ascending";
    table.querySelectorAll("th").forEach((th) => th.removeAttribute("aria-sort"));
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
    const body = table.tBodies[0];
    const rows = Array.from(body.rows);
    rows.sort((x, y) => {
      const a = cellValue(x, column);
      const b = cellValue(y, column);
      if (a === null || b === null) return (a === null) - (b === null); // missing last
      return descending ? -compare(a, b) : compare(a, b);
    });
    rows.forEach((row) => body.appendChild(row));
  }

  function sortable(table) {
    table.querySelectorAll("thead th").forEach((header, column) => {
      header.tabIndex = 0;
      const sort = () => sortBy(table, column, header);
      header.addEventListener("click", sort);
      header.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sort();
        }
      });
    });
  }

  /* -- the protocol and budget filters of a corpus page -- */
  function filters() {
    const selects = Array.from(document.querySelectorAll("select[data-filter]"));
    const apply = () => {
      const want = {};
      selects.forEach((select) => (want[select.dataset.filter] = select.value));
      document.querySelectorAll("section.protocol").forEach((section) => {
        section.hidden = Boolean(want.protocol) && section.dataset.protocol !== want.protocol;
      });
      document.querySelectorAll("tr[data-protocol]").forEach((row) => {
        row.hidden =
          (Boolean(want.protocol) && row.dataset.protocol !== want.protocol) ||
          (Boolean(want.budget) && row.dataset.budget !== want.budget);
      });
    };
    selects.forEach((select) => select.addEventListener("change", apply));
  }

  /* -- the charts: Vega-Lite specs handed over in <script type="application/json"> -- */
  function charts() {
    document.querySelectorAll("div.vega[data-spec]").forEach((box) => {
      const spec = JSON.parse(document.getElementById(box.dataset.spec).textContent);
      if (typeof window.vegaEmbed !== "function") {
        box.textContent = "The charting script did not load.";
        console.error("vegaEmbed is missing: " + root + "assets/ lacks the charting bundle");
        return;
      }
      window
        .vegaEmbed(box, spec, {
          renderer: "svg",
          actions: { export: true, source: false, compiled: false, editor: false },
        })
        .catch((error) => console.error(error));
    });
  }

  /* -- the document browser of a run page -- */
  const pad = (number) => String(number).padStart(3, "0");

  function sideColumn(title, kind, ids, gold, sentences) {
    const side = document.createElement("div");
    side.className = "side " + kind;
    const heading = document.createElement("h4");
    heading.textContent = title;
    const list = document.createElement("ol");
    ids.forEach((id, place) => {
      const item = document.createElement("li");
      const rank = gold.indexOf(id);
      item.dataset.sid = String(id);
      if (gold[place] !== id) item.className = "moved";
      const where = document.createElement("span");
      where.className = "pos";
      where.textContent = rank >= 0 ? String(rank + 1) : "+";
      where.title = rank >= 0 ? "its place in the gold order" : "a distractor";
      const text = document.createElement("span");
      text.className = "text";
      if (rank < 0) text.textContent = "distractor " + id;
      else if (sentences) text.textContent = sentences[id];
      else text.textContent = "sentence " + id;
      item.append(where, text);
      list.appendChild(item);
    });
    side.append(heading, list);
    return side;
  }

  function documentCard(doc, tau, sentences) {
    const card = document.createElement("article");
    card.className = "doc";
    card.dataset.id = doc.id;
    const head = document.createElement("header");
    const shownTau = tau === null || tau === undefined ? "–" : tau.toFixed(3);
    head.textContent = `${doc.id} · ${doc.gold.length} sentences · τ = ${shownTau}`;
    const sides = document.createElement("div");
    sides.className = "sides";
    sides.append(
      sideColumn("gold order", "gold", doc.gold, doc.gold, sentences),
      sideColumn("predicted order", "pred", doc.pred, doc.gold, sentences)
    );
    card.append(head, sides);
    return card;
  }

  function browser(box) {
    const key = box.dataset.key;
    const size = Number(box.dataset.pageSize) || 10;
    const part = (name) => box.querySelector(`[data-doc="${name}"]`);
    let index = null;
    let picked = [];
    let page = 0;
    const fail = (error) => {
      part("status").textContent = String(error.message || error);
      console.error(error);
    };

    function pick() {
      const least = Number(part("min").value) || 0;
      const most = Number(part("max").value) || Infinity;
      const error = part("error").value;
      const found = [];
      for (let i = 0; i < index.n.length; i++) {
        const flags = index.flags[i];
        if (index.n[i] < least || index.n[i] > most) continue;
        if (error === "0" ? flags !== 0 : error !== "" && !(flags & Number(error))) continue;
        found.push(i);
      }
      if (part("order").value === "best") found.reverse();
      return found;
    }

    function show() {
      const pages = Math.max(1, Math.ceil(picked.length / size));
      page = Math.min(Math.max(page, 0), pages - 1);
      const shown = picked.slice(page * size, (page + 1) * size);
      part("status").textContent =
        `${picked.length} of ${index.n.length} documents · page ${page + 1} of ${pages}`;
      const chunks = Array.from(new Set(shown.map((i) => Math.floor(i / index.chunk))));
      Promise.all(chunks.map((c) => load(`${key}/docs-${pad(c)}`)))
        .then((parts) => {
          const byChunk = {};
          chunks.forEach((c, k) => (byChunk[c] = parts[k]));
          const docs = shown.map((i) => ({
            doc: byChunk[Math.floor(i / index.chunk)][i % index.chunk],
            tau: index.tau[i],
          }));
          const texts = Array.from(
            new Set(docs.filter((d) => d.doc.t !== undefined).map((d) => d.doc.t))
          );
          return Promise.all(texts.map((t) => load(`${index.text}/text-${pad(t)}`))).then(
            (found) => {
              const byText = {};
              texts.forEach((t, k) => (byText[t] = found[k]));
              const list = part("list");
              list.textContent = "";
              docs.forEach(({ doc, tau }) => {
                const sentences = doc.t !== undefined ? byText[doc.t][doc.id] : null;
                list.appendChild(documentCard(doc, tau, sentences));
              });
            }
          );
        })
        .catch(fail);
    }

    function refresh() {
      picked = pick();
      page = 0;
      show();
    }

    ["min", "max"].forEach((name) => part(name).addEventListener("input", refresh));
    ["error", "order"].forEach((name) => part(name).addEventListener("change", refresh));
    part("prev").addEventListener("click", () => {
      page -= 1;
      show();
    });
    part("next").addEventListener("click", () => {
      page += 1;
      show();
    });
    load(key + "/index")
      .then((data) => {
        index = data;
        refresh();
      })
      .catch(fail);
  }

  document.querySelectorAll("table.sortable").forEach(sortable);
  filters();
  charts();
  document.querySelectorAll("div.documents[data-key]").forEach(browser);
})();
