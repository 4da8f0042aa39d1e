// A stand-in for the Workers AI binding (no local emulation without an account): `run(model,
// inputs)` over RPC, answering text embeddings (`{text}` → `{shape, data}`) and chat
// (`{messages}` → `{response}`) like the real models' output shapes. `fetch` exposes the calls.
import { WorkerEntrypoint } from "cloudflare:workers";

const calls = [];

function embedding(text, dims) {
  const v = new Array(dims).fill(0);
  for (const ch of text.toLowerCase()) v[ch.codePointAt(0) % dims] += 1;
  return v;
}

function chat(system) {
  if (system.includes('{"diary"')) return { diary: "今天和用户聊了爬山。" };
  if (system.includes('{"prior"')) return { prior: "用户喜欢爬山。" };
  if (system.includes("You extract long-term memory")) {
    return {
      entity_ops: [],
      pkg_updates: [{ key: "Hobbies", value: ["爬山"] }],
      memories: [{ summary: "用户喜欢爬山", type: "preference", keywords: ["爬山"], importance: 0.6, confidence: 0.9, event_time: null }],
    };
  }
  return { verdict: "DISTINCT" };
}

export default class AiStandin extends WorkerEntrypoint {
  async run(model, inputs) {
    calls.push({ model, kind: inputs.text ? "embed" : "chat", count: inputs.text?.length ?? inputs.messages?.length });
    if (Array.isArray(inputs.text)) {
      const data = inputs.text.map((t) => embedding(t, 8));
      return { shape: [data.length, 8], data };
    }
    if (Array.isArray(inputs.messages)) {
      const system = inputs.messages.find((m) => m.role === "system")?.content ?? "";
      return { response: JSON.stringify(chat(system)) };
    }
    throw new Error(`AiError: unsupported inputs for ${model}`);
  }

  async fetch() {
    return Response.json({ calls });
  }
}
