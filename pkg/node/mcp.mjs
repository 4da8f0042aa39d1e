// The stdio MCP server: `npx hippo mcp --store FILE [--npc ID] [--read-only]`. The protocol
// is the official TypeScript SDK's; the tools (their schemas, access rules and behaviour) are
// the core's, the same as the Worker's /mcp (hippo::mcp), reached through `mcpTools` and
// `callTool`. Nothing but MCP messages goes to stdout; diagnostics go to stderr.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { Hippo } from './index.mjs';

const USAGE = `usage: hippo mcp --store FILE [--npc NPCID] [--read-only]
  --store FILE   the memory file (created if absent)
  --npc NPCID    serve only this NPC (tools then need no npcid argument)
  --read-only    only the reading tools (with --npc)`;

/** Parses `mcp` arguments; throws with the usage on a mistake. */
export function parseArgs(argv) {
  const options = { store: null, npcid: null, readOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value\n${USAGE}`);
      return v;
    };
    if (arg === '--store') options.store = value();
    else if (arg === '--npc') options.npcid = value();
    else if (arg === '--read-only') options.readOnly = true;
    else throw new Error(`unknown argument ${arg}\n${USAGE}`);
  }
  if (!options.store) throw new Error(`--store is required\n${USAGE}`);
  if (options.readOnly && !options.npcid) throw new Error(`--read-only needs --npc\n${USAGE}`);
  return options;
}

/** An MCP server over `hippo` for `caller` (`{npcid?, scopes?}`), not yet connected. */
export function createMcpServer(hippo, caller = {}) {
  const server = new Server(
    { name: 'hippo', title: 'Hippo memory', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Hippo is the long-term memory of one character\'s user. Use `brief` at the start of a ' +
        'session, `recall` before answering about the user\'s life, `remember` for what the user ' +
        'says or a fact worth keeping, and `dream` to consolidate.',
    },
  );
  const known = new Set(hippo.mcpTools({}).map((t) => t.name));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: hippo.mcpTools(caller) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    if (!known.has(name)) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    try {
      const value = await hippo.callTool(caller, name, args ?? {});
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    } catch (err) {
      // The core's refusals are tool errors the model can read; anything else is ours.
      if (err && typeof err.code === 'string' && err.code !== 'internal_error') {
        return { content: [{ type: 'text', text: `${err.code}: ${err.message}` }], isError: true };
      }
      throw new McpError(ErrorCode.InternalError, String(err?.message ?? err));
    }
  });
  return server;
}

/** Runs the stdio server until stdin closes. */
export async function runStdio(argv) {
  const options = parseArgs(argv);
  const hippo = await Hippo.open({ storage: { file: options.store } });
  const caller = options.npcid
    ? { npcid: options.npcid, scopes: options.readOnly ? ['read', 'retrieval'] : ['read', 'write', 'retrieval'] }
    : {};
  const server = createMcpServer(hippo, caller);
  const transport = new StdioServerTransport();
  transport.onclose = () => hippo.close().catch(() => {});
  await server.connect(transport);
  process.stderr.write(`hippo mcp: serving ${options.store}${options.npcid ? ` (NPC ${options.npcid})` : ''} on stdio\n`);
}
