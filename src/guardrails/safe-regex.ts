/**
 * Runs user-supplied regular expressions with a time limit. A catastrophic pattern such as
 * `^(a+)+$` can backtrack for minutes; running the test inside a `node:vm` script with a
 * `timeout` lets V8 interrupt it (works under Node and Bun). Costs tens of microseconds a call.
 */
import vm from "node:vm";

/** How long one regex test may run. */
export const REGEX_TIMEOUT_MS = 100;

/** Thrown by `safeTest` when a pattern runs past its time limit. */
export class RegexTimeoutError extends Error {
  constructor() {
    super("The regular expression took too long and was stopped.");
    this.name = "RegexTimeoutError";
  }
}

const sandbox = vm.createContext(Object.create(null) as object);
const testScript = new vm.Script("__re.lastIndex = 0; __re.test(__text)");

/** `re.test(text)`, stopped after `timeoutMs`: throws `RegexTimeoutError` then. */
export function safeTest(re: RegExp, text: string, timeoutMs = REGEX_TIMEOUT_MS): boolean {
  const scope = sandbox as { __re?: RegExp; __text?: string };
  scope.__re = re;
  scope.__text = text;
  try {
    return testScript.runInContext(sandbox, { timeout: timeoutMs }) === true;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw new RegexTimeoutError();
    throw error;
  } finally {
    scope.__re = undefined;
    scope.__text = undefined;
  }
}

/** The error message of compiling `pattern` with `flags`, or null when it compiles. */
export function regexError(pattern: string, flags = ""): string | null {
  try {
    new RegExp(pattern, flags);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : "invalid regular expression";
  }
}
