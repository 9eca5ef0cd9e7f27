// Reads JSON [{tex, display}] on stdin; prints JSON [{i, error}] for formulas MathJax 3 rejects (the engine of
// Jupyter, Colab and Obsidian). Undefined macros are errors here, not red text: noundefined and noerrors are
// left out, so MathJax throws what a reader would see as an error box.
const MathJax = require(process.env.MATHJAX_MODULE || "mathjax");
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  MathJax.init({
    loader: { load: ["input/tex-base", "[tex]/ams", "[tex]/newcommand", "[tex]/configmacros"] },
    tex: { packages: ["base", "ams", "newcommand", "configmacros"], formatError: (jax, err) => { throw err; } },
  }).then((MJ) => {
    const items = JSON.parse(input);
    const errors = [];
    items.forEach((item, i) => {
      try {
        MJ.tex2mml(item.tex, { display: item.display });
      } catch (e) {
        errors.push({ i, error: String(e.message) });
      }
    });
    process.stdout.write(JSON.stringify(errors));
  }).catch((e) => { process.stderr.write(String(e.stack || e)); process.exit(1); });
});
