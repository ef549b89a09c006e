// Interface texts in English, Portuguese (Brazil) and Spanish. The language comes from the
// browser (navigator.languages) unless the player picked one with the switch.
export const LANGUAGES = [
  ["en", "English"],
  ["pt-BR", "Português"],
  ["es", "Español"],
];
const KEY = "regalia.lang";
let dict = {};
let fallback = {};
let current = "en";

export function detectLang() {
  const saved = localStorage.getItem(KEY);
  if (saved && LANGUAGES.some(([code]) => code === saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const low = (l || "").toLowerCase();
    if (low.startsWith("pt")) return "pt-BR";
    if (low.startsWith("es")) return "es";
    if (low.startsWith("en")) return "en";
  }
  return "en";
}

async function fetchDict(lang) {
  const r = await fetch(`/static/i18n/${lang}.json`);
  if (!r.ok) throw new Error("no dictionary " + lang);
  return r.json();
}

export async function loadLang(lang) {
  if (!Object.keys(fallback).length) fallback = await fetchDict("en");
  current = lang;
  dict = lang === "en" ? fallback : await fetchDict(lang).catch(() => fallback);
  document.documentElement.lang = lang;
  return lang;
}

export function lang() { return current; }

export function t(key, params = {}) {
  let s;
  if (params && typeof params.n === "number") {
    const form = params.n === 1 ? "_one" : "_other";
    s = dict[key + form] ?? fallback[key + form];
  }
  if (s === undefined) s = dict[key] ?? fallback[key];
  if (s === undefined) return key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (params && params[k] !== undefined ? String(params[k]) : m));
}

// Whether a text exists for key (or its plural forms key_one / key_other).
export function has(key) {
  return [key, key + "_other"].some((k) => k in dict || k in fallback);
}

// Fill every [data-i18n] element (and [data-i18n-title], [data-i18n-placeholder]).
export function applyStatic(root = document) {
  root.querySelectorAll("[data-i18n]").forEach((e) => { e.textContent = t(e.dataset.i18n); });
  root.querySelectorAll("[data-i18n-title]").forEach((e) => { e.title = t(e.dataset.i18nTitle); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((e) => { e.placeholder = t(e.dataset.i18nPlaceholder); });
}

// The language switch; on a phone's narrow topbar its options read "EN", "PT", "ES" (a
// whole name would be cut), their names in their titles; turning the phone changes them.
export function langSwitch(select, onChange) {
  select.innerHTML = "";
  for (const [code, name] of LANGUAGES) {
    const o = document.createElement("option");
    o.value = code;
    o.title = name;
    if (code === current) o.selected = true;
    select.append(o);
  }
  const narrow = window.matchMedia("(max-width: 640px)");
  const label = () => {
    for (const o of select.options) o.textContent = narrow.matches ? o.value.slice(0, 2).toUpperCase() : o.title;
  };
  label();
  narrow.addEventListener("change", label);
  select.addEventListener("change", async () => {
    localStorage.setItem(KEY, select.value);
    await loadLang(select.value);
    applyStatic();
    onChange && onChange(select.value);
  });
}
