// A local Telegram Bot API for the phone relay's tests (npm telegram-test-api): it listens on a free
// port of 127.0.0.1 and prints {"url": ...} once, then serves until it is stopped.
//
// The emulator differs from the Bot API as documented (https://core.telegram.org/bots/api) in ways
// the relay depends on, so this file makes it behave as Telegram does:
// - `getUpdates` long-polls: with `timeout` it holds the request until an update comes or the time
//   is up, and a second `getUpdates` for the same bot ends the one held with 409 Conflict
//   ("terminated by other getUpdates request"), as Telegram does when two programs poll one bot.
// - `editMessageText` of a message the bot never sent is 400 "message to edit not found", and one
//   that changes nothing is 400 "message is not modified".
// - A callback query always has its `chat_instance` (the emulator drops it; a strict client rightly
//   refuses a query without it), and an `edited_message` update exists (`POST /sendEditedMessage`).
// Test controls beside the API: `POST /acks` lists what each `answerCallbackQuery` said (the
// emulator forgets them), and `POST /fail` makes the next calls of one method fail the way Telegram
// fails them (e.g. 429 with `parameters.retry_after`).
import http from 'node:http';
import pkg from 'telegram-test-api';

const TelegramServer = pkg.TelegramServer ?? pkg;
const format = TelegramServer.formatUpdate;
TelegramServer.formatUpdate = (update) => {
  if (update.editedMessage) {
    return { update_id: update.updateId, edited_message: update.editedMessage };
  }
  const formatted = format(update);
  if (formatted.callback_query) {
    formatted.callback_query.chat_instance = String(update.callbackQuery.chat_instance ?? '1');
  }
  return formatted;
};

// Messages are kept for an hour, longer than any test.
const server = new TelegramServer({ storeTimeout: 3600 });
const acks = [];
// method -> [{ status, description, retry_after }]: the next calls of that method fail so.
const failures = new Map();
// token -> the getUpdates request held open for it.
const held = new Map();

const send = (res, status, value) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};
const json = (res, value) => send(res, 200, value);
const refuse = (res, status, description, parameters) =>
  send(res, status, { ok: false, error_code: status, description, ...(parameters ? { parameters } : {}) });

const readBody = (req) =>
  new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      try {
        resolve(body ? JSON.parse(body) : {});
      } catch {
        resolve({});
      }
    });
  });

const pending = (token) => server.storage.userMessages.some((u) => u.botToken === token && !u.isRead);

// Wakes every held poll that now has something to read.
const wake = () => {
  for (const [token, poll] of held) {
    if (pending(token)) {
      held.delete(token);
      clearTimeout(poll.timer);
      json(poll.res, { ok: true, result: server.getUpdates(token) });
    }
  }
};
for (const event of ['AddedUserMessage', 'AddedUserCommand', 'AddedUserCallbackQuery']) {
  server.on(event, wake);
}

const getUpdates = (token, params, res) => {
  const before = held.get(token);
  if (before) {
    held.delete(token);
    clearTimeout(before.timer);
    refuse(before.res, 409, 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running');
  }
  const timeout = Number(params.timeout ?? 0);
  if (pending(token) || !(timeout > 0)) {
    json(res, { ok: true, result: server.getUpdates(token) });
    return;
  }
  const poll = { res, timer: null };
  poll.timer = setTimeout(() => {
    if (held.get(token) === poll) {
      held.delete(token);
      json(res, { ok: true, result: [] });
    }
  }, timeout * 1000);
  // A client that goes away stops holding its poll.
  res.on('close', () => {
    if (held.get(token) === poll) {
      held.delete(token);
      clearTimeout(poll.timer);
    }
  });
  held.set(token, poll);
};

const editMessageText = (params, res) => {
  const found = server.storage.botMessages.find(
    (u) => String(u.messageId) === String(params.message_id) && String(u.message.chat_id) === String(params.chat_id),
  );
  if (!found) {
    refuse(res, 400, 'Bad Request: message to edit not found');
    return;
  }
  const markup = (m) => JSON.stringify(m.reply_markup?.inline_keyboard ?? []);
  if (found.message.text === params.text && markup(found.message) === markup(params)) {
    refuse(res, 400, 'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message');
    return;
  }
  server.editMessageText(params);
  json(res, { ok: true, result: true });
};

const listener = http.createServer(async (req, res) => {
  const bot = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url);
  if (req.url === '/acks') {
    json(res, { ok: true, result: acks });
  } else if (req.url === '/fail') {
    const params = await readBody(req);
    const queue = failures.get(params.method) ?? [];
    for (let i = 0; i < (params.times ?? 1); i++) queue.push(params);
    failures.set(params.method, queue);
    json(res, { ok: true, result: true });
  } else if (req.url === '/sendEditedMessage') {
    const params = await readBody(req);
    const { botToken, ...message } = params;
    await server.addUserUpdate({ ...server.getCommonFields(botToken), editedMessage: { edit_date: message.date, ...message } });
    server.emit('AddedUserMessage');
    json(res, { ok: true, result: null });
  } else if (bot && failures.get(bot[2])?.length) {
    const failure = failures.get(bot[2]).shift();
    const status = failure.status ?? 500;
    const parameters = failure.retry_after ? { retry_after: failure.retry_after } : undefined;
    refuse(res, status, failure.description ?? `Too Many Requests: retry after ${failure.retry_after ?? 1}`, parameters);
  } else if (bot && bot[2] === 'answerCallbackQuery') {
    const params = await readBody(req);
    acks.push({ callback_query_id: String(params.callback_query_id), text: params.text ?? null });
    json(res, { ok: true, result: true });
  } else if (bot && bot[2] === 'getUpdates') {
    getUpdates(bot[1], await readBody(req), res);
  } else if (bot && bot[2] === 'editMessageText') {
    editMessageText(await readBody(req), res);
  } else {
    server.webServer(req, res);
  }
}).listen(0, '127.0.0.1', () => {
  const { port } = listener.address();
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n');
});
