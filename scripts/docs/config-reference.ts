/**
 * `docs/configuration.md`, written from the environment schema in `src/config.ts`: every
 * variable, its default, its limits and what it does. `npm run codegen` writes it and
 * `npm run codegen -- --check` fails when it is stale.
 */
import { settingDocs } from "../../src/config.ts";

const MIB = 1024 * 1024;

/** A default as the reference shows it: units for sizes and durations, `—` for none. */
function shownDefault(name: string, value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0) || (typeof value === "object" && value !== null && Object.keys(value).length === 0)) return "—";
  if (typeof value === "number") {
    if (name.endsWith("_BYTES") && value >= 1024) return `\`${value}\` (${value % MIB === 0 ? `${value / MIB} MiB` : `${value / 1024} KiB`})`;
    if (name.endsWith("_MS") && value >= 1000 && value % 1000 === 0) return `\`${value}\` (${value / 1000} s)`;
  }
  return `\`${String(value)}\``;
}

export function renderConfigReference(): string {
  const rows = settingDocs().map(({ name, doc, parsedDefault }) => {
    const cells = [`\`${name}\``, doc.shownDefault ?? shownDefault(name, parsedDefault), doc.limits ?? "", doc.doc.replaceAll("|", "\\|")];
    return `| ${cells.join(" | ")} |`;
  });
  return [
    "<!-- Written by `npm run codegen` from the schema in src/config.ts. Do not edit: change the schema's documentation. -->",
    "# Configuration (environment)",
    "",
    "The gateway reads its settings from the environment once, at start; an empty variable counts as unset.",
    "A value out of range or not in the form a variable takes stops start-up with a message naming the variable.",
    "",
    "Numbers are decimal digits only (no sign, spaces, exponent or hex). Durations (`*_MS`) are bounded: the",
    "request and shutdown timeouts and the log flush interval by one hour, the cache lifetimes by one day;",
    "byte sizes by 1 GiB. The limits column gives each number's range, and the values other variables take.",
    "",
    "| variable | default | limits | what it does |",
    "|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}
