/// The console's page, style and script, compiled into the binary: the release tarball ships
/// the binary alone, and nothing is fetched from anywhere else at run time. The script is
/// split by page (`ConsoleScript+*.swift`) and served as one file.
enum ConsolePage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Braid console</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/console/console.css">
        </head>
        <body>
        <header>
          <strong>Braid console</strong>
          <nav>
            <a href="#search" data-page="search">Search preview</a>
            <a href="#feed" data-page="feed">Feed preview</a>
            <a href="#experiments" data-page="experiments">Experiments</a>
            <a href="#workers" data-page="workers">Workers</a>
          </nav>
          <span id="status" role="status"></span>
        </header>
        <main id="main"></main>
        <script src="/console/console.js"></script>
        </body>
        </html>
        """#

    static let style = #"""
        :root { --a: #2f6fde; --b: #e07b1a; --line: #d9dde3; --muted: #6b7380; --bg: #f6f7f9; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: #1d2230; background: var(--bg); }
        header { display: flex; gap: 24px; align-items: center; padding: 10px 16px; background: #1d2230; color: #fff; }
        header nav a { color: #c9d2e3; margin-right: 14px; text-decoration: none; }
        header nav a.active { color: #fff; border-bottom: 2px solid #fff; }
        #status { margin-left: auto; color: #ffb4b4; }
        main { padding: 16px; }
        form.bar { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; margin-bottom: 12px; }
        form.bar label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
        input, select, button { font: inherit; padding: 4px 6px; }
        .meta { color: var(--muted); font-size: 12px; }
        .legend span { display: inline-block; padding: 0 8px; margin-right: 6px; border-radius: 3px; color: #fff; }
        .columns { display: grid; gap: 12px; }
        .columns.three { grid-template-columns: 1fr 1.3fr 1fr; }
        .column h3 { margin: 4px 0; font-size: 13px; }
        ol.results { list-style: none; margin: 0; padding: 0; }
        li.item { display: flex; gap: 8px; align-items: baseline; padding: 4px 8px; margin: 2px 0; background: #fff;
          border-left: 6px solid var(--team); }
        li.item .pos { width: 3em; text-align: right; color: var(--muted); font-variant-numeric: tabular-nums; }
        li.item .team { color: #fff; background: var(--team); border-radius: 3px; padding: 0 6px; font-size: 12px; }
        li.item.placed { opacity: .45; }
        li.boundary { margin: 10px 0 4px; padding: 2px 8px; border-top: 2px dashed #8a93a3; color: var(--muted); font-size: 12px; }
        table { border-collapse: collapse; background: #fff; margin: 6px 0 16px; }
        th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; }
        th { background: #eef0f4; }
        td.text { text-align: left; max-width: 520px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .feed { width: 400px; background: #fff; border: 1px solid var(--line); padding: 8px; }
        section.component { margin: 0 0 14px; }
        section.component h4 { margin: 2px 0 6px; font-size: 13px; }
        .skeleton { background: linear-gradient(90deg, #e6e9ee 25%, #f1f3f6 50%, #e6e9ee 75%); background-size: 200% 100%;
          animation: shimmer 1.2s infinite; border-radius: 6px; flex: none; }
        @keyframes shimmer { from { background-position: 200% 0; } to { background-position: -200% 0; } }
        .hlist { display: flex; gap: 8px; overflow-x: auto; padding-bottom: 4px; }
        .vlist > * { margin-bottom: 6px; }
        .grid { display: grid; grid-template-columns: repeat(2, 1fr); gap: 6px; }
        .cell { flex: none; border-radius: 6px; overflow: hidden; background: #fafbfc; border: 1px solid var(--line); font-size: 12px; }
        .cell .art { height: 55%; }
        .cell .caption { padding: 4px 6px; }
        .carousel { position: relative; overflow: hidden; border-radius: 6px; }
        .carousel .strip { display: flex; height: 100%; transition-property: transform; }
        .carousel .slide { flex: none; height: 100%; position: relative; }
        .carousel .overlay { position: absolute; left: 8px; bottom: 8px; color: #fff; font-weight: 600; text-shadow: 0 1px 3px #000; }
        .carousel .dots { position: absolute; right: 8px; bottom: 6px; color: #fff; font-size: 11px; }
        .card { padding: 8px; border: 1px solid var(--line); border-radius: 6px; display: flex; flex-wrap: wrap; gap: 12px; }
        .banner { display: flex; align-items: center; padding: 0 14px; border-radius: 6px; color: #fff; background: #7a4bd6; font-weight: 600; }
        .tabs .heads button { border: 0; background: none; padding: 4px 10px; border-bottom: 2px solid transparent; }
        .tabs .heads button.active { border-bottom-color: #1d2230; font-weight: 600; }
        .tabs .panel { display: none; } .tabs .panel.active { display: block; }
        .pager { display: flex; gap: 8px; align-items: center; margin-top: 4px; font-size: 12px; }
        svg.chart { background: #fff; border: 1px solid var(--line); }
        .errors { color: #b42318; }
        """#
}
