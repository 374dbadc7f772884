/** How the log reads an answer: `chat` completions, or any other JSON operation. */
export type AnswerFormat = "chat" | "json";
