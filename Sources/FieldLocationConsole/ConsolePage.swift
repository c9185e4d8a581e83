/// The status page: one HTML document with its style and script inline (no files, no CDN, no map
/// tiles), so it works on a unit with no network beyond the browser that opens it. The script is
/// in ``ConsolePageScript``.
enum ConsolePage {
    /// The page's content security policy: nothing loads from anywhere, the stream comes from here.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'"

    static let html = head + body + "<script>\n" + ConsolePageScript.source + "\n</script>\n</body>\n</html>\n"

    static let head = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>FieldLocation</title>
        <style>
        :root { --bg:#101418; --panel:#1a2027; --line:#2c3540; --text:#e4e8ec; --dim:#8c98a4; --good:#3fb950; --fair:#d29922; --bad:#f85149; --acc:#58a6ff; }
        * { box-sizing: border-box; }
        body { margin:0; font:14px/1.4 system-ui, sans-serif; background:var(--bg); color:var(--text); }
        header { display:flex; flex-wrap:wrap; gap:.5em 1.5em; align-items:baseline; padding:.6em 1em; border-bottom:1px solid var(--line); }
        header h1 { font-size:1.1em; margin:0; }
        header .dim { color:var(--dim); }
        #live { padding:.1em .5em; border-radius:1em; background:var(--bad); color:#fff; font-size:.85em; }
        #live.on { background:var(--good); }
        main { display:grid; gap:.8em; padding:.8em; grid-template-columns:repeat(auto-fit, minmax(300px, 1fr)); }
        section { background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:.6em .8em; min-width:0; }
        section h2 { font-size:.95em; margin:0 0 .4em; color:var(--dim); font-weight:600; text-transform:uppercase; letter-spacing:.04em; }
        table { border-collapse:collapse; width:100%; }
        td { padding:.12em .3em; vertical-align:top; }
        td:first-child { color:var(--dim); white-space:nowrap; width:40%; }
        svg { display:block; width:100%; height:auto; max-height:340px; }
        svg text { fill:var(--dim); font-size:11px; font-family:system-ui, sans-serif; }
        .sat text { fill:var(--text); font-size:9px; }
        .warn { color:var(--fair); }
        .bad { color:var(--bad); }
        .legend span { display:inline-block; margin-right:.8em; font-size:.85em; color:var(--dim); }
        .legend i { display:inline-block; width:.8em; height:.8em; border-radius:50%; margin-right:.3em; vertical-align:-1px; }
        ul { margin:.2em 0; padding-left:1.2em; }
        </style>
        </head>

        """#

    static let body = #"""
        <body>
        <header>
          <h1>FieldLocation</h1>
          <span id="board" class="dim">—</span>
          <span id="receiver" class="dim"></span>
          <span id="uptime" class="dim"></span>
          <span id="live">connecting</span>
        </header>
        <main>
          <section><h2>Fix</h2><table id="fix"></table></section>
          <section id="receivers-section" hidden><h2>Receivers</h2><table id="receivers"></table></section>
          <section><h2>Sky</h2>
            <svg id="sky" viewBox="-160 -160 320 320" role="img" aria-label="sky plot"></svg>
            <div class="legend"><span><i style="background:#3fb950"></i>≥ 40 dB-Hz</span><span><i style="background:#d29922"></i>30-39</span><span><i style="background:#f0883e"></i>20-29</span><span><i style="background:#f85149"></i>&lt; 20</span><span>filled: used</span></div>
          </section>
          <section><h2>Signal (C/N0)</h2><svg id="bars" viewBox="0 0 320 160" role="img" aria-label="C/N0 bars"></svg></section>
          <section><h2>Track</h2><svg id="track" viewBox="0 0 320 240" role="img" aria-label="recent track"></svg><div id="trackinfo" class="dim"></div></section>
          <section><h2>Heading and attitude</h2>
            <svg id="compass" viewBox="-110 -110 220 220" role="img" aria-label="compass"></svg>
            <table id="heading"></table>
          </section>
          <section><h2>Time</h2><table id="time"></table></section>
          <section><h2>Power and energy</h2><table id="power"></table></section>
          <section><h2>Regions</h2><div id="regions" class="dim">none monitored</div></section>
          <section><h2>Health</h2><table id="health"></table><ul id="concerns"></ul></section>
          <section><h2>Warnings</h2><ul id="warnings"><li class="dim">none</li></ul></section>
        </main>

        """#
}
