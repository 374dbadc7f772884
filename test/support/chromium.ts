import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/**
 * Flags for a headless Chromium on a closed network: without the background-networking ones its
 * own connections (updates, sync) are refused and slow everything down.
 */
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Debian's Chromium, installed with apt-get when it is missing (CI runs as root). */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
  execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "ignore", env });
}

export async function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}
