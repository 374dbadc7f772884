import Mustache from "mustache";
import type { PromptMessage } from "./types.ts";

/**
 * A prompt's template rendered in the browser, so an edit runs before it is saved. The rules
 * are the gateway's (src/prompts/template.ts): Mustache with fixed `{{ }}` tags, values as they
 * are (chat text is not HTML, nothing is escaped), no partials. Saving sends the template to the
 * gateway, which checks it again with its limits.
 */
const TAGS: [string, string] = ["{{", "}}"];

/** A token of `Mustache.parse`: `[type, value, start, end, children?]`. */
type Token = [string, string, number, number, Token[]?];

const writer = new Mustache.Writer();

const isSection = (token: Token): boolean => token[0] === "#" || token[0] === "^";
const namesVariable = (token: Token): boolean => token[0] === "name" || token[0] === "&" || isSection(token);

function* walk(tokens: Token[]): Generator<Token> {
  const pending = [tokens];
  for (let list = pending.pop(); list; list = pending.pop()) {
    for (const token of list) {
      yield token;
      if (isSection(token)) pending.push(token[4] ?? []);
    }
  }
}

/** Where a template is wrong: `messages.<i>.content` and why. */
export interface TemplateProblem {
  param: string;
  message: string;
}

function problemOf(index: number, content: string): TemplateProblem | null {
  let tokens: Token[];
  try {
    tokens = writer.parse(content, TAGS) as Token[];
  } catch (error) {
    return { param: `messages.${index}.content`, message: `Mustache syntax error: ${(error as Error).message}` };
  }
  for (const token of walk(tokens)) {
    if (token[0] === ">") return { param: `messages.${index}.content`, message: `partials ({{> ${token[1]}}}) are not supported in prompt templates.` };
  }
  return null;
}

/** The first template that does not parse or uses a partial, or null. */
export function templateProblem(messages: PromptMessage[]): TemplateProblem | null {
  for (const [index, message] of messages.entries()) {
    const problem = problemOf(index, message.content);
    if (problem) return problem;
  }
  return null;
}

/** The variables the templates name (a dotted name by its first part), sorted; as the gateway lists them. */
export function templateVariables(messages: PromptMessage[]): string[] {
  const names = new Set<string>();
  for (const message of messages) {
    let tokens: Token[];
    try {
      tokens = writer.parse(message.content, TAGS) as Token[];
    } catch {
      continue;
    }
    for (const token of walk(tokens)) {
      const name = namesVariable(token) && token[1] !== "." ? token[1].split(".")[0] : "";
      if (name) names.add(name);
    }
  }
  return [...names].sort();
}

/**
 * A variable's value as typed: text, or the parsed value when the text is a JSON array or
 * object (what a `{{#items}}` section iterates over).
 */
export function variableValue(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return text;
    }
  }
  return text;
}

/** The messages with the variables filled in; a template problem instead when one does not parse. */
export function renderTemplate(messages: PromptMessage[], variables: Record<string, unknown>): { messages: PromptMessage[] } | { problem: TemplateProblem } {
  const problem = templateProblem(messages);
  if (problem) return { problem };
  return { messages: messages.map((message) => ({ ...message, content: writer.render(message.content, variables, {}, { tags: TAGS, escape: (value: unknown) => String(value) }) })) };
}
