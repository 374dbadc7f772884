/** The JSON readers the Gemini API transforms share, and how they refuse a field. */
export { arrayField, isObject, numberField, objectField, stringField } from "../json-fields.ts";

/** Refused with a 400 naming the offending field (thrown inside a translation, caught at its edge). */
export class Refusal {
  constructor(
    readonly message: string,
    readonly param: string,
  ) {}
}
