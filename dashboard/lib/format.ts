/** Number and time formats used across the tables. */
export const dash = "—";

export function time(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export function shortTime(iso: string): string {
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  const clock = date.toLocaleTimeString(undefined, { hour12: false });
  return today ? clock : `${date.toLocaleDateString(undefined, { month: "short", day: "numeric" })} ${clock}`;
}

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined) return dash;
  if (value >= 10_000) return `${(value / 1000).toFixed(1)} s`;
  return `${Math.round(value).toLocaleString()} ms`;
}

export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined) return dash;
  if (value === 0) return "$0";
  if (value < 0.01) return `$${value.toPrecision(2)}`;
  return `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

export function int(value: number | null | undefined): string {
  return value === null || value === undefined ? dash : value.toLocaleString();
}

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? dash : `${(value * 100).toFixed(1)}%`;
}

export function bytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return dash;
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
  return `${(value / 1024 / 1024).toFixed(1)} MiB`;
}

export function short(id: string | null | undefined, length = 8): string {
  if (!id) return dash;
  return id.length > length + 1 ? `${id.slice(0, length)}…` : id;
}

export function statusClass(status: number): string {
  if (status < 300) return "ok";
  if (status < 400) return "info";
  if (status < 500) return "warn";
  return "bad";
}
