import type { Browser, ConsoleMessage } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./support/chromium.ts";
import { call, startGateway, type RunningGateway } from "./support/harness.ts";

/**
 * `/docs` in Chromium with every request to anything but the gateway refused: the reference
 * renders every operation of the document, shows the server it was opened from, offers no link
 * or menu off the machine, shows a neutral key placeholder, and loads the document with no error
 * or warning in the console (Scalar warns of every schema it finds invalid).
 */
let gateway: RunningGateway;
let browser: Browser;

beforeAll(async () => {
  [gateway, browser] = await Promise.all([startGateway(), launchChromium()]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

describe("the API reference (/docs) offline", () => {
  it("renders every operation of the document from the gateway alone, against the page's own origin, with a clean console", async () => {
    const openapi = (await call(gateway, "GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.values(openapi.paths).reduce((count, item) => count + METHODS.filter((method) => method in item).length, 0);
    expect(operations).toBeGreaterThan(50);

    // The page is opened at an address the document does not name (it names localhost:8787).
    const origin = gateway.url.replace("127.0.0.1", "localhost");
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const refused: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      refused.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    // Errors, and warnings: Scalar reports the schemas it finds invalid as a warning
    // ("document validation errors") whose argument lists each one's message and path.
    const consoleProblems: Promise<string>[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") consoleProblems.push(consoleLine(message));
    });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${origin}/docs`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(
      (expected) => new Set([...document.querySelectorAll("button, a")].filter((item) => item.textContent?.includes("HTTP Method:")).map((item) => item.textContent)).size >= expected,
      operations,
      { timeout: 90_000, polling: 250 },
    );
    await page.waitForFunction((url) => document.body.innerText.includes(url), `${origin}/v1/chat/completions`, { timeout: 10_000, polling: 250 }).catch(() => undefined);
    const seen = await page.evaluate(() => {
      const visible = (element: Element) => (element as HTMLElement).offsetParent !== null;
      return {
        operations: new Set([...document.querySelectorAll("button, a")].filter((item) => item.textContent?.includes("HTTP Method:")).map((item) => item.textContent)).size,
        outsideLinks: [...document.querySelectorAll("a[href]")].filter(visible).map((link) => (link as HTMLAnchorElement).href).filter((href) => !href.startsWith(location.origin)),
        text: document.body.innerText,
        placeholders: [...document.querySelectorAll("input")].map((input) => input.placeholder).filter(Boolean),
      };
    });
    expect(seen.operations).toBe(operations);
    // Requests are shown against the address the page was opened at.
    expect(seen.text).toContain(`${origin}/v1/chat/completions`);
    expect(seen.text).not.toContain("localhost:8787");
    expect(seen.outsideLinks).toEqual([]);
    for (const offsite of ["Open API Client", "Share", "Deploy"]) expect(seen.text).not.toContain(offsite);
    expect(seen.placeholders).toContain("your gateway key");
    expect(seen.placeholders.some((placeholder) => /^[A-Za-z0-9+/=]{24,}$/.test(placeholder))).toBe(false);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    expect(await Promise.all(consoleProblems)).toEqual([]);
    await context.close();
    // Scalar renders a hundred operations; on a busy two-core machine that takes most of a minute.
  }, 150_000);
});

/** A console message with its arguments, so a validation report names each schema and its problem. */
async function consoleLine(message: ConsoleMessage): Promise<string> {
  const args = await Promise.all(message.args().map((arg) => arg.jsonValue().catch(() => "?")));
  const details = args.flatMap((arg) =>
    Array.isArray(arg) ? arg.map((item: { message?: string; path?: string }) => (item?.path ? `${item.message} at ${item.path}` : JSON.stringify(item))) : [],
  );
  return [`${message.type()}: ${message.text()}`, ...details].join("\n  ");
}
