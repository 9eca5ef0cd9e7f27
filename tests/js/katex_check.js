// Reads JSON [{tex, display}] on stdin; prints JSON [{i, error}] for formulas KaTeX rejects.
const path = require("path");
const katex = require(process.env.KATEX_MODULE || "katex");
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const items = JSON.parse(input);
  const errors = [];
  items.forEach((item, i) => {
    try {
      katex.renderToString(item.tex, { displayMode: item.display, throwOnError: true, strict: "error" });
    } catch (e) {
      errors.push({ i, error: String(e.message) });
    }
  });
  process.stdout.write(JSON.stringify(errors));
});
