import Mustache from "mustache";
import type { OpeningAndClosingTags, TemplateCache } from "mustache";
import type { PromptMessage } from "../records/control-plane.ts";
import { fail, GatewayError, ok, type Result } from "../errors.ts";
import { MAX_RENDER_STEPS, MAX_RENDERED_CHARS, MAX_SECTION_DEPTH, MAX_TEMPLATE_VARIABLES, templateLimitProblem } from "./template-limits.ts";

/**
 * Prompt templates are Mustache (https://mustache.github.io/mustache.5.html), parsed and rendered
 * by the `mustache` library. Partials are refused: a prompt is self-contained. Chat text is not
 * HTML, so values are rendered as they are, never HTML-escaped. Size and nesting are bounded
 * (`./template-limits.ts`) and every walk over tokens is iterative, so no template can exhaust
 * the stack or hold the event loop.
 */

/** Fixed tags, so a process-wide change of `Mustache.tags` cannot change how prompts parse. */
const TAGS: OpeningAndClosingTags = ["{{", "}}"];
const MAX_CACHED_TEMPLATES = 1_000;

/** A token of `Mustache.parse`: `[type, value, start, end, children?, …]`. */
type Token = [string, string, number, number, ...unknown[]];

/**
 * The library's template cache is unbounded; ours keeps the most recently parsed templates,
 * so rendering a stored prompt does not parse it again and edited templates do not pile up.
 */
class BoundedTemplateCache implements TemplateCache {
  private entries = new Map<string, string>();

  constructor(private readonly limit: number) {}

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: string): void {
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, value);
  }

  clear(): void {
    this.entries = new Map();
  }
}

/** Our own writer: its cache and settings are private to prompts, not the process-wide default. */
const writer: InstanceType<typeof Mustache.Writer> & { templateCache?: TemplateCache } = new Mustache.Writer();
writer.templateCache = new BoundedTemplateCache(MAX_CACHED_TEMPLATES);

const asIs = (value: unknown): string => String(value);

const isSection = (token: Token): boolean => token[0] === "#" || token[0] === "^";
const namesVariable = (token: Token): boolean => token[0] === "name" || token[0] === "&" || isSection(token);
const childrenOf = (token: Token): Token[] => (isSection(token) ? (token[4] as Token[]) : []);
/** `user.name` → `user`; `.` (the current item of a section) names no variable. */
const rootName = (name: string): string | null => (name === "." ? null : (name.split(".")[0] ?? ""));

function parse(template: string): Token[] {
  return writer.parse(template, TAGS) as Token[];
}

/** Every token with its section depth (0 at the top), sections' children included; iterative. */
function* walk(tokens: Token[]): Generator<[Token, number]> {
  const pending: Array<[Token[], number]> = [[tokens, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [list, depth] = next;
    for (const token of list) {
      yield [token, depth];
      if (isSection(token)) pending.push([childrenOf(token), depth + 1]);
    }
  }
}

function templateError(index: number, message: string): GatewayError {
  return new GatewayError("invalid_request", `messages.${index}.content: ${message}`, { param: `messages.${index}.content` });
}

/** The problem with one template, or null when it parses, nests within bounds and uses no partial or empty name. */
function templateProblem(template: string): string | null {
  let tokens: Token[];
  try {
    tokens = parse(template);
  } catch (error) {
    return `Mustache syntax error: ${error instanceof Error ? error.message : String(error)}.`;
  }
  for (const [token, depth] of walk(tokens)) {
    if (depth >= MAX_SECTION_DEPTH && isSection(token)) return `sections nest deeper than ${MAX_SECTION_DEPTH} levels.`;
    if (token[0] === ">") return `partials ({{> ${token[1]}}}) are not supported in prompt templates.`;
    if (namesVariable(token) && rootName(token[1]) === "") return `a tag at offset ${token[2]} names no variable.`;
  }
  return null;
}

/**
 * Checks every message template: the size and depth limits first (before parsing), then the
 * syntax, then the number of variables. A problem → 400 naming `messages.<i>.content` (or
 * `messages` for the variables). Never throws.
 */
export function validateTemplate(messages: PromptMessage[]): Result<void, GatewayError> {
  const limit = templateLimitProblem(messages.map((message) => message.content));
  if (limit) return fail(templateError(limit.index, limit.message));
  for (const [index, message] of messages.entries()) {
    const problem = templateProblem(message.content);
    if (problem !== null) return fail(templateError(index, problem));
  }
  const variables = templateVariables(messages).length;
  if (variables > MAX_TEMPLATE_VARIABLES) {
    return fail(new GatewayError("invalid_request", `The prompt's templates name ${variables} variables, more than the ${MAX_TEMPLATE_VARIABLES} allowed.`, { param: "messages" }));
  }
  return ok(undefined);
}

/**
 * Sorted unique variable names used in the templates: names (`{{x}}`, `{{{x}}}`, `{{&x}}`),
 * sections (`{{#x}}`) and inverted sections (`{{^x}}`), at every depth; a dotted name gives its
 * first segment. A name inside a section may also be filled by the section's item (see
 * `renderMessages`). Templates that do not parse contribute nothing (validateTemplate refuses them).
 */
export function templateVariables(messages: PromptMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages) {
    let tokens: Token[];
    try {
      tokens = parse(message.content);
    } catch {
      continue;
    }
    for (const [token] of walk(tokens)) {
      const name = namesVariable(token) ? rootName(token[1]) : null;
      if (name) names.add(name);
    }
  }
  return [...names].sort();
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** The value of a (dotted) name in the innermost context that owns its first segment, as Mustache looks it up. */
function lookup(stack: readonly unknown[], name: string): { found: boolean; value: unknown } {
  if (name === ".") return { found: true, value: stack[stack.length - 1] };
  const [first = "", ...rest] = name.split(".");
  for (let depth = stack.length - 1; depth >= 0; depth -= 1) {
    const context = stack[depth];
    if (!isRecord(context) || !Object.hasOwn(context, first)) continue;
    let value: unknown = context[first];
    for (const segment of rest) value = isRecord(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
    return { found: true, value };
  }
  return { found: false, value: undefined };
}

/** What rendering would do: the variables no context gives, and the work and output it takes so far. */
interface RenderPlan {
  missing: Set<string>;
  steps: number;
  chars: number;
}

/**
 * Walks the tokens as Mustache renders them, iteratively: a section over a list renders its
 * children once per item (the item first, then the outer contexts), a falsy section or empty
 * list renders nothing, an inverted section renders only then. Records each variable no context
 * gives (an absent section variable too), and counts visited tokens and output characters.
 * Returns false as soon as either passes its bound (the render would be refused).
 */
function planRender(tokens: Token[], variables: Record<string, unknown>, plan: RenderPlan): boolean {
  const pending: Array<[Token[], readonly unknown[]]> = [[tokens, [variables]]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [list, stack] = next;
    for (const token of list) {
      plan.steps += 1;
      if (plan.steps > MAX_RENDER_STEPS || plan.chars > MAX_RENDERED_CHARS) return false;
      if (token[0] === "text") plan.chars += token[1].length;
      if (!namesVariable(token)) continue;
      const { found, value } = lookup(stack, token[1]);
      if (!found) {
        plan.missing.add(rootName(token[1]) ?? token[1]);
        continue;
      }
      if (!isSection(token)) {
        if (value !== null && value !== undefined) plan.chars += String(value).length;
        continue;
      }
      const children = childrenOf(token);
      const empty = !value || (Array.isArray(value) && value.length === 0);
      if (token[0] === "^") {
        if (empty) pending.push([children, stack]);
      } else if (!empty) {
        if (Array.isArray(value)) {
          for (const item of value) {
            pending.push([children, [...stack, item]]);
            if (pending.length > MAX_RENDER_STEPS) return false;
          }
        } else {
          pending.push([children, typeof value === "boolean" ? stack : [...stack, value]]);
        }
      }
    }
  }
  return plan.chars <= MAX_RENDERED_CHARS;
}

/**
 * Renders each message with the variables, without HTML escaping (chat text is not HTML).
 * A template that breaks a limit or does not parse (one stored before a limit existed) → 400
 * naming `messages.<i>.content`; missing variables → 400 (code invalid_request, param
 * `variables`) naming each missing one; variables that would make the render visit more than
 * `MAX_RENDER_STEPS` tokens or produce more than `MAX_RENDERED_CHARS` characters → 400 on
 * `variables`, before any rendering. Never throws.
 */
export function renderMessages(messages: PromptMessage[], variables: Record<string, unknown>): Result<PromptMessage[], GatewayError> {
  const valid = validateTemplate(messages);
  if (!valid.ok) return valid;
  const plan: RenderPlan = { missing: new Set(), steps: 0, chars: 0 };
  for (const message of messages) {
    if (!planRender(parse(message.content), variables, plan)) {
      return fail(
        new GatewayError(
          "invalid_request",
          `With these variables the prompt would render more than ${MAX_RENDERED_CHARS} characters or visit more than ${MAX_RENDER_STEPS} template tokens (sections over long lists multiply).`,
          { param: "variables" },
        ),
      );
    }
  }
  const { missing } = plan;
  if (missing.size > 0) {
    const names = [...missing].sort();
    const list = names.map((name) => `"${name.slice(0, 100)}"`).join(", ");
    return fail(new GatewayError("invalid_request", `Missing prompt variable${names.length === 1 ? "" : "s"}: ${list}.`, { param: "variables" }));
  }
  const rendered: PromptMessage[] = [];
  for (const [index, message] of messages.entries()) {
    try {
      rendered.push({ ...message, content: writer.render(message.content, variables, {}, { escape: asIs, tags: TAGS }) });
    } catch (error) {
      return fail(templateError(index, `cannot be rendered: ${error instanceof Error ? error.message : String(error)}.`));
    }
  }
  return ok(rendered);
}
