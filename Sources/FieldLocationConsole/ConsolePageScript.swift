/// The status page's script: it opens `/events` (Server-Sent Events), keeps the track it is sent
/// first and extends it, and redraws the panels at each update. `window.fieldloc` holds what it
/// drew last (updates, satellites plotted, headings seen), for anyone checking the page.
enum ConsolePageScript {
    static let source = #"""
        "use strict";
        const NS = "http://www.w3.org/2000/svg";
        const state = { updates: 0, satellites: 0, headings: [], track: [], last: null };
        window.fieldloc = state;
        const $ = (id) => document.getElementById(id);
        function el(name, attrs, parent, text) {
          const e = document.createElementNS(NS, name);
          for (const k in attrs) e.setAttribute(k, attrs[k]);
          if (text !== undefined) e.textContent = text;
          if (parent) parent.appendChild(e);
          return e;
        }
        function fmt(v, d, unit) { return (v === undefined || v === null) ? "—" : Number(v).toFixed(d) + (unit || ""); }
        function rows(id, list) {
          const t = $(id);
          t.replaceChildren();
          for (const [k, v, cls] of list) {
            const tr = t.insertRow();
            tr.insertCell().textContent = k;
            const c = tr.insertCell();
            c.textContent = v;
            if (cls) c.className = cls;
          }
        }
        function cn0Colour(s) {
          if (s === undefined || s === null) return "#6e7681";
          if (s >= 40) return "#3fb950";
          if (s >= 30) return "#d29922";
          if (s >= 20) return "#f0883e";
          return "#f85149";
        }
        const systemLetter = { GPS: "G", GLONASS: "R", Galileo: "E", BeiDou: "C", QZSS: "J", NavIC: "I", SBAS: "S" };
        function letter(sat) {
          if (!sat.system) return "";
          for (const k in systemLetter) if (sat.system.toLowerCase() === k.toLowerCase()) return systemLetter[k];
          return sat.system[0].toUpperCase();
        }

        function drawSky(sats) {
          const svg = $("sky");
          svg.replaceChildren();
          for (const r of [150, 100, 50]) el("circle", { cx: 0, cy: 0, r: r, fill: "none", stroke: "#2c3540" }, svg);
          el("line", { x1: -150, y1: 0, x2: 150, y2: 0, stroke: "#2c3540" }, svg);
          el("line", { x1: 0, y1: -150, x2: 0, y2: 150, stroke: "#2c3540" }, svg);
          for (const [t, x, y] of [["N", 0, -152], ["E", 154, 4], ["S", 0, 160], ["W", -158, 4]]) el("text", { x: x, y: y, "text-anchor": "middle" }, svg, t);
          let plotted = 0;
          for (const s of sats) {
            if (s.el === undefined || s.az === undefined || s.el < 0) continue;
            const r = 150 * (90 - s.el) / 90, a = s.az * Math.PI / 180;
            const x = r * Math.sin(a), y = -r * Math.cos(a);
            const g = el("g", { class: "sat", "data-prn": s.prn, "data-used": s.used }, svg);
            const colour = cn0Colour(s.snr);
            el("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 9, fill: s.used ? colour : "none", stroke: colour, "stroke-width": 2 }, g);
            el("text", { x: x.toFixed(1), y: (y + 3).toFixed(1), "text-anchor": "middle" }, g, letter(s) + s.prn);
            el("title", {}, g, (s.system || "") + " " + s.prn + ": el " + s.el + "°, az " + s.az + "°, " + fmt(s.snr, 0, " dB-Hz") + (s.used ? ", used" : ""));
            plotted++;
          }
          state.satellites = plotted;
          svg.setAttribute("data-satellites", plotted);
        }

        function drawBars(sats) {
          const svg = $("bars");
          svg.replaceChildren();
          const list = sats.slice().sort((a, b) => (b.snr || 0) - (a.snr || 0)).slice(0, 24);
          const w = list.length ? Math.min(24, 300 / list.length) : 24;
          for (const y of [0, 20, 40]) {
            const py = 130 - y * 2.5;
            el("line", { x1: 16, y1: py, x2: 320, y2: py, stroke: "#2c3540" }, svg);
            el("text", { x: 0, y: py + 4 }, svg, String(y));
          }
          list.forEach((s, i) => {
            const h = Math.max(0, Math.min(50, s.snr || 0)) * 2.5, x = 18 + i * w;
            el("rect", { x: x, y: 130 - h, width: w - 3, height: h, fill: s.used ? cn0Colour(s.snr) : "none", stroke: cn0Colour(s.snr) }, svg);
            el("text", { x: x + (w - 3) / 2, y: 146, "text-anchor": "middle", "font-size": 8 }, svg, letter(s) + s.prn);
          });
        }

        function drawTrack() {
          const svg = $("track"), pts = state.track;
          svg.replaceChildren();
          if (pts.length === 0) { $("trackinfo").textContent = "no positions yet"; return; }
          let la0 = Infinity, la1 = -Infinity, lo0 = Infinity, lo1 = -Infinity;
          for (const [la, lo] of pts) { la0 = Math.min(la0, la); la1 = Math.max(la1, la); lo0 = Math.min(lo0, lo); lo1 = Math.max(lo1, lo); }
          const k = Math.cos((la0 + la1) / 2 * Math.PI / 180);
          const spanM = Math.max((la1 - la0) * 111320, (lo1 - lo0) * 111320 * k, 10);
          const scale = 200 / spanM, cx = (lo0 + lo1) / 2, cy = (la0 + la1) / 2;
          const xy = ([la, lo]) => [160 + (lo - cx) * 111320 * k * scale, 120 - (la - cy) * 111320 * scale];
          el("polyline", { points: pts.map(p => xy(p).map(v => v.toFixed(1)).join(",")).join(" "), fill: "none", stroke: "#58a6ff", "stroke-width": 2 }, svg);
          const [x, y] = xy(pts[pts.length - 1]);
          el("circle", { cx: x.toFixed(1), cy: y.toFixed(1), r: 5, fill: "#f85149" }, svg);
          const bar = Math.pow(10, Math.floor(Math.log10(spanM / 2)));
          el("line", { x1: 10, y1: 230, x2: 10 + bar * scale, y2: 230, stroke: "#e4e8ec", "stroke-width": 2 }, svg);
          el("text", { x: 10, y: 222 }, svg, bar >= 1000 ? (bar / 1000) + " km" : bar + " m");
          $("trackinfo").textContent = pts.length + " positions" + (state.last && state.last.reduced ? " (reduced accuracy)" : "");
        }

        function drawCompass(s) {
          const svg = $("compass");
          svg.replaceChildren();
          el("circle", { cx: 0, cy: 0, r: 100, fill: "none", stroke: "#2c3540", "stroke-width": 2 }, svg);
          for (let d = 0; d < 360; d += 10) {
            const a = d * Math.PI / 180, r0 = d % 90 === 0 ? 84 : (d % 30 === 0 ? 90 : 95);
            el("line", { x1: (r0 * Math.sin(a)).toFixed(1), y1: (-r0 * Math.cos(a)).toFixed(1), x2: (100 * Math.sin(a)).toFixed(1), y2: (-100 * Math.cos(a)).toFixed(1), stroke: "#8c98a4" }, svg);
          }
          for (const [t, d] of [["N", 0], ["E", 90], ["S", 180], ["W", 270]]) {
            const a = d * Math.PI / 180;
            el("text", { x: (72 * Math.sin(a)).toFixed(1), y: (-72 * Math.cos(a) + 4).toFixed(1), "text-anchor": "middle" }, svg, t);
          }
          const needle = (deg, colour, dash, id) => {
            if (deg === undefined || deg === null) return;
            const g = el("g", { id: id, transform: "rotate(" + Number(deg).toFixed(1) + ")" }, svg);
            el("polygon", { points: "0,-88 7,0 0,10 -7,0", fill: dash ? "none" : colour, stroke: colour, "stroke-width": 2, "stroke-dasharray": dash ? "4 3" : "" }, g);
          };
          needle(s.heading_magnetic, "#58a6ff", true, "needle-magnetic");
          needle(s.heading_true !== undefined ? s.heading_true : s.heading_magnetic, "#f85149", false, "needle-true");
        }

        function update(doc) {
          const s = doc.status;
          state.last = doc;
          state.updates++;
          document.body.dataset.updates = state.updates;
          if (doc.track) state.track = doc.track.slice();
          else if (s.lat !== undefined && s.lon !== undefined) {
            const last = state.track[state.track.length - 1];
            if (!last || last[0] !== s.lat || last[1] !== s.lon) state.track.push([s.lat, s.lon]);
            if (state.track.length > 600) state.track.shift();
          }
          const heading = s.heading_true !== undefined ? s.heading_true : s.heading_magnetic;
          if (heading !== undefined) { state.headings.push(heading); if (state.headings.length > 120) state.headings.shift(); }
          $("board").textContent = "board " + s.board;
          $("receiver").textContent = s.receiver;
          $("uptime").textContent = "up " + fmt(s.uptime, 0, " s");
          const mode = { 3: "3D fix", 2: "2D fix", 1: "no fix" }[s.mode] || "no data";
          rows("fix", [["Mode", mode, s.mode === 3 ? "" : "warn"], ["UTC", s.time || "—"],
            ["Latitude", fmt(s.lat, 7, "°")], ["Longitude", fmt(s.lon, 7, "°")], ["Altitude (MSL)", fmt(s.alt, 1, " m")],
            ["Accuracy", fmt(s.eph, 1, " m") + " horizontal, " + fmt(s.epv, 1, " m") + " vertical"],
            ["Speed, course", fmt(s.speed, 2, " m/s") + ", " + fmt(s.course, 1, "°")], ["HDOP", fmt(s.hdop, 2)],
            ["Satellites", (s.satellites_used || 0) + " used of " + (s.satellites || []).length], ["Fix age", fmt(s.fix_age, 1, " s")]]);
          const receivers = s.receivers || [];
          const fixTypes = { twoD: "2D", threeD: "3D", dgps: "DGPS", rtkFloat: "RTK float", rtkFixed: "RTK fixed", deadReckoning: "dead reckoning" };
          $("receivers-section").hidden = receivers.length < 2;
          rows("receivers", receivers.map(r => [r.name + (r.chosen ? (r.live ? " (delivering)" : " (silent)") : ""),
            (r.open ? "open " : "absent ") + (r.device || r.usb || "") + (r.problem && !r.open ? ": " + r.problem : "") + " · " + r.family + (r.model ? " " + r.model : "")
              + " · " + (r.fix_type ? (fixTypes[r.fix_type] || r.fix_type) + " ±" + fmt(r.accuracy, 1, " m") + ", " + fmt(r.fix_age, 1, " s") + " ago" : "no fix yet"),
            r.open ? "" : "warn"]));
          drawSky(s.satellites || []);
          drawBars(s.satellites || []);
          drawTrack();
          drawCompass(s);
          const a = s.attitude || {};
          rows("heading", [["True heading", fmt(s.heading_true, 1, "°")], ["Magnetic heading", fmt(s.heading_magnetic, 1, "°")],
            ["Accuracy", "±" + fmt(s.heading_accuracy, 1, "°") + " (" + (s.heading_quality || "—") + ")", s.heading_quality === "good" ? "" : "warn"],
            ["Pitch, roll", fmt(s.pitch, 1, "°") + ", " + fmt(s.roll, 1, "°")],
            ["Filter", a.sources ? a.sources.join(", ") + (a.still ? " (still)" : "") : "—"],
            ["Calibration", s.calibration ? s.calibration.verdict + " (score " + s.calibration.score + ")" : "none stored"]]);
          const t = s.time_service || {}, h = s.health || {};
          rows("time", [["PPS", s.pps || "—"], ["Time source", t.source || "—"], ["PPS offset", fmt(t.pps_offset, 6, " s")],
            ["Serial offset", fmt(t.serial_offset, 6, " s")], ["Corrections", s.corrections ? (s.corrections.link || "") : "none"]]);
          rows("power", [["Receiver", s.power ? s.power.receiver + (s.power.paused ? " (paused)" : "") : "—"],
            ["Receiver charge", fmt(h.receiver_charge_mAh, 3, " mAh")], ["Mean current", fmt(h.receiver_mean_current_mA, 2, " mA")],
            ["Sensors charge", fmt(h.sensor_charge_mAh, 3, " mAh")]]);
          const regions = s.regions || [];
          $("regions").textContent = regions.length ? regions.map(r => r.identifier + " (" + r.client + "): " + r.state).join("; ") : "none monitored";
          rows("health", [["TTFF", fmt(h.ttff_s, 1, " s") + (h.receiver_ttff_s !== undefined ? " (receiver " + fmt(h.receiver_ttff_s, 1, " s") + ")" : "")],
            ["Fixes", (h.fixes || 0) + ", " + fmt(h.fix_rate_hz, 2, "/s")],
            ["Sentences", (h.sentences_accepted || 0) + " accepted, " + (h.sentences_rejected || 0) + " rejected"],
            ["Garbage bytes", String(h.garbage_bytes || 0)],
            ["Watchdog", (h.watchdog_wakes || 0) + " wakes, " + (h.power_cycles || 0) + " power cycles, autobaud " + (h.autobaud_recoveries || 0) + "/" + (h.autobaud_runs || 0)],
            ["Port", (h.port_failures || 0) + " failures, " + (h.port_reopens || 0) + " reopens"],
            ["Interference", "jamming " + (h.jamming || "—") + (h.jamming_indicator !== undefined ? " (CW " + h.jamming_indicator + ")" : "") + ", spoofing " + (h.spoofing || "—")],
            ["Heading age", fmt(h.heading_age_s, 1, " s")]]);
          const concerns = $("concerns");
          concerns.replaceChildren();
          for (const c of (h.concerns || [])) { const li = document.createElement("li"); li.className = "bad"; li.textContent = c; concerns.appendChild(li); }
          const warnings = $("warnings");
          warnings.replaceChildren();
          for (const w of (s.warnings || [])) { const li = document.createElement("li"); li.className = "warn"; li.textContent = w; warnings.appendChild(li); }
          if (!(s.warnings || []).length) { const li = document.createElement("li"); li.className = "dim"; li.textContent = "none"; warnings.appendChild(li); }
        }

        function connect() {
          const live = $("live");
          const source = new EventSource("events");
          source.onopen = () => { live.textContent = "live"; live.className = "on"; };
          source.onmessage = (e) => { try { update(JSON.parse(e.data)); } catch (err) { live.textContent = "bad update"; live.className = ""; } };
          source.onerror = () => { live.textContent = "reconnecting"; live.className = ""; };
        }
        connect();
        """#
}
