/**
 * A local HTTP server that speaks the OpenAI chat-completions format (`POST /v1/chat/completions`,
 * non-streaming), answering from a script the test writes, one reply per request, and keeping
 * every request it received so a test can check what the model was offered.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message of a chat-completions request, as the fields a test looks at. */
interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The parsed JSON body of a chat-completions request (the fields a test looks at). */
interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{ type: 'function'; function: { name: string; description?: string; parameters: unknown } }>;
  max_tokens?: number;
}

export interface FakeLlmRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatRequestBody;
  /** The body's size as received, in bytes. */
  bytes: number;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
  /** Wait this long before answering (a slow model); skipped when the client has gone. */
  delayMs?: number;
  /** Answer only once this settles (a model as slow as the test says); skipped when the client has gone. */
  gate?: Promise<unknown>;
}

/** A reply, or what to reply to the request it is taken for (calls in flight together arrive in any order). */
type ScriptedReply = FakeReply | ((request: FakeLlmRequest) => FakeReply);

export interface FakeLlm {
  /** The OpenAI-compatible base URL, ending in `/v1`. */
  url: string;
  requests: FakeLlmRequest[];
  /** Queues replies, answered in order; a request past the script gets a 500 that says so. */
  script(...replies: ScriptedReply[]): void;
  /** Forgets the requests and drops replies a test scripted but never got asked for. */
  reset(): void;
  close(): Promise<void>;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

const DEFAULT_USAGE: Usage = { prompt_tokens: 100, completion_tokens: 20 };

function completion(message: Record<string, unknown>, finishReason: string, usage: Usage): unknown {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'fake-model',
    choices: [{ index: 0, message, finish_reason: finishReason }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

let callCounter = 0;

/** An assistant turn that calls tools; `args` as a string is sent verbatim (malformed JSON included). */
export function toolCallsReply(
  calls: Array<{ name: string; args: unknown }>,
  usage: Usage = DEFAULT_USAGE,
): FakeReply {
  return {
    body: completion(
      {
        role: 'assistant',
        content: null,
        tool_calls: calls.map((c) => ({
          id: `call_${++callCounter}`,
          type: 'function',
          function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args) },
        })),
      },
      'tool_calls',
      usage,
    ),
  };
}

/** A final assistant message without tool calls; `finishReason: 'length'` is a cut-off answer. */
export function textReply(text: string, usage: Usage = DEFAULT_USAGE, finishReason = 'stop'): FakeReply {
  return { body: completion({ role: 'assistant', content: text }, finishReason, usage) };
}

/** An error in OpenAI's shape. */
export function errorReply(status: number, message: string, headers: Record<string, string> = {}): FakeReply {
  return { status, headers, body: { error: { message, type: 'error', code: null } } };
}

function send(res: ServerResponse, reply: FakeReply): void {
  res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
  res.end(JSON.stringify(reply.body));
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const requests: FakeLlmRequest[] = [];
  const queue: ScriptedReply[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = Buffer.concat(chunks);
      const raw = received.toString('utf8');
      const request: FakeLlmRequest = {
        path: req.url ?? '',
        headers: req.headers,
        bytes: received.length,
        body: (raw ? JSON.parse(raw) : {}) as ChatRequestBody,
      };
      requests.push(request);
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        send(res, errorReply(404, `no route ${req.method} ${req.url}`));
        return;
      }
      const next =
        queue.shift() ?? errorReply(500, `the test scripted no reply for request ${requests.length}`);
      const reply = typeof next === 'function' ? next(request) : next;
      if (reply.gate) {
        void reply.gate.then(() => {
          if (!res.destroyed) send(res, reply);
        });
        return;
      }
      if (!reply.delayMs) {
        send(res, reply);
        return;
      }
      const timer = setTimeout(() => send(res, reply), reply.delayMs);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...replies) => queue.push(...replies),
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
