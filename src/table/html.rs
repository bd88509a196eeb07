//! `diving replay FILE --html PAGE`: a recorded game as one self-contained HTML page.
//!
//! Every position is a `<section>` holding its heading, narration and board as text, made by
//! the same narrator and board as the viewer and seen from the same viewpoint (so a page
//! made `--as bob` names no card bob could not see). A few lines of inline script show one
//! section at a time with buttons and the arrow keys; without script every section shows.
//! Nothing is fetched: no link, image, font or script from elsewhere.

use crate::table::render::Style;
use crate::table::replay::Replay;

/// The page for `replay` as its viewpoint sees it; `title` names the game (the file).
pub fn page(replay: &Replay, title: &str) -> String {
    let style = Style { color: false, unicode: true };
    let mut sections = String::new();
    for k in 0..=replay.moves() {
        let mut text = replay.narration(k, style).join("\n");
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&replay.board(k, style, Some(100)));
        sections.push_str(&format!(
            "<section class=\"step\" id=\"step-{k}\">\n<h2>{}</h2>\n<pre>{}</pre>\n</section>\n",
            escape(&replay.heading(k)),
            escape(text.trim_end())
        ));
    }
    let title = escape(title);
    let seen = escape(&replay.viewpoint());
    let last = replay.moves();
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Diving Suits replay: {title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em auto; max-width: 60em; padding: 0 1em; }}
pre {{ background: #f4f6f8; padding: 0.8em; overflow-x: auto; line-height: 1.3; }}
nav {{ position: sticky; top: 0; background: #fff; padding: 0.4em 0; }}
nav button {{ font-size: 1em; margin-right: 0.3em; }}
h2 {{ font-size: 1.05em; }}
</style>
</head>
<body>
<h1>Diving Suits replay: {title}</h1>
<p>Seen {seen}. {last} moves. Use the buttons or the arrow keys (Home and End for the start and the end).</p>
<nav>
<button type="button" id="first">start</button>
<button type="button" id="prev">prev</button>
<button type="button" id="next">next</button>
<button type="button" id="last">end</button>
<span id="where"></span>
</nav>
{sections}<script>
(function () {{
  var steps = document.querySelectorAll("section.step");
  var at = 0;
  function show(k) {{
    at = Math.max(0, Math.min(steps.length - 1, k));
    for (var i = 0; i < steps.length; i++) {{ steps[i].hidden = i !== at; }}
    document.getElementById("where").textContent = "position " + at + " of " + (steps.length - 1);
  }}
  document.getElementById("first").onclick = function () {{ show(0); }};
  document.getElementById("prev").onclick = function () {{ show(at - 1); }};
  document.getElementById("next").onclick = function () {{ show(at + 1); }};
  document.getElementById("last").onclick = function () {{ show(steps.length - 1); }};
  document.addEventListener("keydown", function (e) {{
    if (e.key === "ArrowRight") {{ show(at + 1); }}
    else if (e.key === "ArrowLeft") {{ show(at - 1); }}
    else if (e.key === "Home") {{ show(0); }}
    else if (e.key === "End") {{ show(steps.length - 1); }}
  }});
  show(0);
}})();
</script>
</body>
</html>
"#
    )
}

/// `text` safe inside an element or an attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
