extension WebPage {
    /// The hub's admin page and the fleet console look alike: one column on a phone, two on a
    /// wide screen; visible focus for keyboard users. The console adds a few rules of its own.
    package static let style = #"""
:root { font-family: system-ui, sans-serif; color: #1b1b1b; background: #f6f6f4; }
body { margin: 0; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .75rem 1rem; background: #23395b; color: #fff; }
header h1 { margin: 0; font-size: 1.3rem; }
header p { margin: 0; }
main { display: grid; gap: 1rem; padding: 1rem; grid-template-columns: 1fr; }
@media (min-width: 900px) { main { grid-template-columns: 1fr 1fr; } }
section { background: #fff; border-radius: 8px; padding: .75rem 1rem; box-shadow: 0 1px 2px rgba(0,0,0,.12); min-width: 0; }
h2 { font-size: 1.05rem; margin: .25rem 0 .75rem; }
form { display: flex; flex-wrap: wrap; gap: .4rem .6rem; align-items: center; margin: .5rem 0; }
label { font-size: .9rem; }
input, select, button { font: inherit; padding: .35rem .5rem; border: 1px solid #888; border-radius: 4px; }
button { background: #23395b; color: #fff; border-color: #23395b; cursor: pointer; }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 3px solid #e3a21a; outline-offset: 2px; }
.buttons { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .5rem; }
table { width: 100%; border-collapse: collapse; font-size: .9rem; }
th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid #ddd; vertical-align: top; }
.meter { display: inline-block; width: 8rem; height: .7rem; background: #ddd; border-radius: 3px; vertical-align: middle; }
.meter > span { display: block; height: 100%; background: #2e7d32; border-radius: 3px; }
.muted { color: #b00020; font-weight: bold; }
.waiting { color: #b00020; }
progress { width: 100%; }
ul { padding-left: 1.2rem; }
li { margin: .3rem 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .8rem; margin: 0; }
dt { font-weight: 600; }
[hidden] { display: none !important; }
p, li, dd { overflow-wrap: anywhere; }
td { overflow-wrap: break-word; }
td:nth-child(4) { overflow-wrap: anywhere; }
button { white-space: nowrap; }
input, select { max-width: 100%; box-sizing: border-box; }
/* A phone: the history's rows become cards, the forms one field a line. */
@media (max-width: 600px) {
  table, thead, tbody, tr, th, td { display: block; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { border-bottom: 1px solid #ddd; padding: .3rem 0; }
  td { border: none; padding: .1rem 0; }
  form > input, form > select { flex: 1 1 100%; }
}
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
"""#
}
