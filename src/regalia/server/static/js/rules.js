// The "How to play" page: both games' rules for players, in the chosen language.
import { applyStatic, detectLang, langSwitch, loadLang } from "./i18n.js";

await loadLang(detectLang());
applyStatic();
langSwitch(document.getElementById("lang"));
// The texts arrive after the first layout: go to the game named in the address again.
if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
