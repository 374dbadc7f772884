import Mustache from "mustache";
import { describe, expect, it } from "vitest";
import type { PromptMessage } from "../records/control-plane.ts";
import { renderMessages, templateVariables, validateTemplate } from "./template.ts";
import { MAX_RENDER_STEPS, MAX_SECTION_DEPTH } from "./template-limits.ts";

const user = (content: string): PromptMessage => ({ role: "user", content });
const system = (content: string): PromptMessage => ({ role: "system", content });

function errorOf<T>(result: { ok: true; value: T } | { ok: false; error: { status: number; code: string; param: string | null; message: string } }) {
  if (result.ok) throw new Error("expected a failure");
  return result.error;
}

describe("validateTemplate", () => {
  it("accepts names, sections, inverted sections, comments and unescaped tags", () => {
    expect(validateTemplate([system("You are {{role}}."), user("{{#items}}- {{.}}\n{{/items}}{{^items}}none{{/items}} {{{raw}}} {{&amp}} {{! note }}")]).ok).toBe(true);
  });

  it.each([
    ["an unclosed section", "{{#items}}x"],
    ["an unopened section", "{{/items}}"],
    ["an unclosed tag", "Hello {{name"],
    ["mismatched sections", "{{#a}}{{/b}}"],
  ])("refuses %s with a 400 naming the message's content", (_, content) => {
    const error = errorOf(validateTemplate([system("fine {{x}}"), user(content)]));
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_request");
    expect(error.param).toBe("messages.1.content");
  });

  it("refuses partials, even nested in a section", () => {
    const error = errorOf(validateTemplate([user("{{#a}}{{> footer}}{{/a}}")]));
    expect(error.param).toBe("messages.0.content");
    expect(error.message).toContain("partials");
  });

  it("refuses a tag with no variable name", () => {
    expect(errorOf(validateTemplate([user("Hi {{}}")])).param).toBe("messages.0.content");
  });
});

describe("templateVariables", () => {
  it("lists sorted unique names of names, sections and inverted sections; dotted names give their first segment", () => {
    const messages = [
      system("You help {{user.name}} ({{user.email}}) in {{language}}."),
      user("{{#items}}{{title}}{{/items}}{{^items}}nothing{{/items}} {{{raw}}} {{&also_raw}} {{language}} {{.}} {{! comment }}"),
    ];
    expect(templateVariables(messages)).toEqual(["also_raw", "items", "language", "raw", "title", "user"]);
  });

  it("is empty for plain text", () => {
    expect(templateVariables([user("No variables here.")])).toEqual([]);
  });
});

describe("renderMessages", () => {
  it("renders every message without HTML escaping", () => {
    const rendered = renderMessages([system("Answer in {{language}}."), user("Explain <b>{{topic}}</b> & {{{topic}}}")], {
      language: "French",
      topic: `"a < b" & 'c'`,
    });
    expect(rendered).toEqual({
      ok: true,
      value: [
        { role: "system", content: "Answer in French." },
        { role: "user", content: `Explain <b>"a < b" & 'c'</b> & "a < b" & 'c'` },
      ],
    });
  });

  it("leaves the process-wide Mustache escaping alone", () => {
    renderMessages([user("{{x}}")], { x: "<" });
    expect(Mustache.render("{{x}}", { x: "<" })).toBe("&lt;");
  });

  it("renders sections over lists, falsy values and dotted names", () => {
    const rendered = renderMessages([user("{{#items}}[{{title}} for {{who}}]{{/items}}{{^flag}}off{{/flag}}{{#flag}}on{{/flag}} {{user.name}} {{count}}")], {
      items: [{ title: "a" }, { title: "b" }],
      who: "me",
      flag: false,
      user: { name: "Ada" },
      count: 0,
    });
    expect(rendered.ok && rendered.value[0]?.content).toBe("[a for me][b for me]off Ada 0");
  });

  it("names every missing variable in one 400 on `variables`", () => {
    const error = errorOf(renderMessages([system("{{language}}"), user("{{topic}} {{user.name}} {{language}}")], {}));
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_request");
    expect(error.param).toBe("variables");
    expect(error.message).toContain('"language"');
    expect(error.message).toContain('"topic"');
    expect(error.message).toContain('"user"');
  });

  it("treats an absent section or inverted section variable as missing, false and [] as given", () => {
    expect(errorOf(renderMessages([user("{{#items}}x{{/items}}")], {})).message).toContain('"items"');
    expect(errorOf(renderMessages([user("{{^items}}x{{/items}}")], {})).message).toContain('"items"');
    const given = renderMessages([user("{{#a}}A{{/a}}{{#b}}B{{/b}}{{^b}}no b{{/b}}")], { a: false, b: [] });
    expect(given.ok && given.value[0]?.content).toBe("no b");
  });

  it("does not ask for names that only a section's items give, nor for names in sections that do not render", () => {
    const listed = renderMessages([user("{{#items}}{{title}}{{/items}}")], { items: [{ title: "t" }] });
    expect(listed.ok).toBe(true);
    const skipped = renderMessages([user("{{#show}}{{secret}}{{/show}}")], { show: false });
    expect(skipped.ok && skipped.value[0]?.content).toBe("");
    const needed = errorOf(renderMessages([user("{{#items}}{{title}}{{/items}}")], { items: [{}] }));
    expect(needed.message).toContain('"title"');
  });

  it("counts only the variables' own keys, not Object.prototype's", () => {
    expect(errorOf(renderMessages([user("{{toString}}")], {})).message).toContain('"toString"');
  });

  it("keeps null as a given value (rendered empty)", () => {
    const rendered = renderMessages([user("[{{x}}]")], { x: null });
    expect(rendered.ok && rendered.value[0]?.content).toBe("[]");
  });

  it("returns a syntax error as a 400 instead of throwing", () => {
    expect(errorOf(renderMessages([user("{{#a}}")], { a: 1 })).param).toBe("messages.0.content");
  });
});

describe("limits", () => {
  const nested = (depth: number) => `${"{{#a}}".repeat(depth)}x${"{{/a}}".repeat(depth)}`;

  it("refuses 10,000 and 20,000 nested sections fast, naming the message", () => {
    for (const depth of [10_000, 20_000]) {
      const started = performance.now();
      const error = errorOf(validateTemplate([system("fine"), user(nested(depth))]));
      expect(performance.now() - started).toBeLessThan(500);
      expect(error).toMatchObject({ status: 400, param: "messages.1.content" });
      expect(error.message).toContain(`deeper than ${MAX_SECTION_DEPTH} levels`);
    }
  });

  it("refuses deep nesting hidden behind changed delimiters", () => {
    const hidden = `{{=<% %>=}}${"<%#a%>".repeat(40)}x${"<%/a%>".repeat(40)}`;
    expect(errorOf(validateTemplate([user(hidden)])).message).toContain("deeper than");
  });

  it("renders a template nested exactly to the limit", () => {
    const rendered = renderMessages([user(nested(MAX_SECTION_DEPTH))], { a: true });
    expect(rendered).toMatchObject({ ok: true, value: [{ content: "x" }] });
  });

  it("refuses, on variables, a render that sections over lists would multiply", () => {
    const template = "{{#l}}{{#l}}{{#l}}{{#l}}{{x}}{{/l}}{{/l}}{{/l}}{{/l}}";
    const started = performance.now();
    const error = errorOf(renderMessages([user(template)], { l: Array.from({ length: 30 }, () => 0), x: "y" }));
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ status: 400, param: "variables" });
    expect(error.message).toContain(String(MAX_RENDER_STEPS));
    expect(renderMessages([user(template)], { l: [1, 2], x: "y" })).toMatchObject({ ok: true, value: [{ content: "y".repeat(16) }] });
  });

  it("refuses, on variables, a render whose output would be too large", () => {
    const error = errorOf(renderMessages([user("{{#l}}{{big}}{{/l}}")], { l: Array.from({ length: 20 }, () => 1), big: "z".repeat(1024 * 1024) }));
    expect(error).toMatchObject({ status: 400, param: "variables" });
  });
});
