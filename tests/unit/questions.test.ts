import { describe, expect, it } from "vitest";
import { answersFrom, questionForm, unaskableAnswers } from "../../src/features/questions.js";
import type { v2 } from "../../src/codex/index.js";

const questions: v2.ToolRequestUserInputQuestion[] = [
  {
    id: "db",
    header: "Database",
    question: "Which database?",
    isOther: true,
    isSecret: false,
    options: [
      { label: "Postgres (Recommended)", description: "robust" },
      { label: "SQLite", description: "" },
    ],
  },
  {
    id: "name",
    header: "Name",
    question: "What is the project called?",
    isOther: false,
    isSecret: false,
    options: null,
  },
  { id: "token", header: "Token", question: "Your token?", isOther: false, isSecret: true, options: [] },
];

describe("questions as an ACP form", () => {
  it("one field per question: options as a single choice, free text where Codex allows other answers", () => {
    expect(questionForm(questions)).toEqual({
      type: "object",
      properties: {
        db: {
          type: "string",
          title: "Database",
          description: "Which database?",
          oneOf: [
            { const: "Postgres (Recommended)", title: "Postgres (Recommended)", description: "robust" },
            { const: "SQLite", title: "SQLite" },
          ],
        },
        db__other: { type: "string", title: "Database: another answer", description: "Instead of a choice above" },
        name: { type: "string", title: "Name", description: "What is the project called?" },
        token: { type: "string", title: "Token", description: "Your token? (it is sent to the model)" },
      },
      required: ["name", "token"],
    });
  });

  it("maps the answers back in Codex's shape; a typed other answer wins over a choice", () => {
    expect(answersFrom(questions, { db: "SQLite", db__other: "  DuckDB ", name: "acme", token: "" })).toEqual({
      answers: { db: { answers: ["DuckDB"] }, name: { answers: ["acme"] } },
    });
    expect(answersFrom(questions, { db: "SQLite" })).toEqual({ answers: { db: { answers: ["SQLite"] } } });
    expect(answersFrom(questions, { db: 3, name: ["a", "b"] })).toEqual({
      answers: { db: { answers: ["3"] }, name: { answers: ["a", "b"] } },
    });
  });

  it("without a way to ask, every question gets an answer telling the model so", () => {
    const out = unaskableAnswers(questions);
    expect(Object.keys(out.answers)).toEqual(["db", "name", "token"]);
    expect(out.answers.db!.answers[0]).toMatch(/cannot be asked/);
  });
});
