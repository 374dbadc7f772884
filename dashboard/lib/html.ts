import { h } from "preact";
import htm from "htm";

/**
 * Tagged templates for Preact. Every `${value}` is a text node or a property, never parsed as
 * markup: log bodies are hostile input and are only ever rendered through this.
 */
export const html = htm.bind(h);
