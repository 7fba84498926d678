// Spec/status descriptors from schema titles (the @title tag): paths, list items, ordering.
import { describe, expect, test } from "vitest";
import { schemaDescriptors } from "../../src/bundle/descriptors.js";

describe("schemaDescriptors", () => {
  test("titled fields under spec and status, nested and in lists, sorted by path", () => {
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            size: { type: "integer", title: "Size", description: "How many." },
            untitled: { type: "string" },
            backup: {
              type: "object",
              properties: { schedule: { type: "string", title: "Backup Schedule" } },
            },
            users: {
              type: "array",
              items: {
                type: "object",
                properties: { name: { type: "string", title: "User Name", description: "Login." } },
              },
            },
          },
        },
        status: { type: "object", properties: { phase: { type: "string", title: "Phase" } } },
      },
    };
    expect(schemaDescriptors(schema)).toEqual({
      spec: [
        { path: "backup.schedule", displayName: "Backup Schedule" },
        { path: "size", displayName: "Size", description: "How many." },
        { path: "users[0].name", displayName: "User Name", description: "Login." },
      ],
      status: [{ path: "phase", displayName: "Phase" }],
    });
    expect(schemaDescriptors({})).toEqual({ spec: [], status: [] });
  });
});
