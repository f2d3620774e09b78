// A local Telegram Bot API for the phone relay's tests (npm telegram-test-api): it listens on a free
// port of 127.0.0.1 and prints {"url": ...} once, then serves until it is stopped.
//
// Two shims. The emulator answers `answerCallbackQuery` and forgets it; here each one is kept, and
// `POST /acks` lists them, so a test can read what a tap was told. And real Telegram always gives a callback query its `chat_instance`; the emulator drops it,
// and a strict client (Hark's, through frankenstein) rightly refuses a query without it.
import http from 'node:http';
import pkg from 'telegram-test-api';

const TelegramServer = pkg.TelegramServer ?? pkg;
const format = TelegramServer.formatUpdate;
TelegramServer.formatUpdate = (update) => {
  const formatted = format(update);
  if (formatted.callback_query) {
    formatted.callback_query.chat_instance = String(update.callbackQuery.chat_instance ?? '1');
  }
  return formatted;
};

// Messages are kept for an hour, longer than any test.
const server = new TelegramServer({ storeTimeout: 3600 });
const acks = [];
const listener = http.createServer((req, res) => {
  const json = (value) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.url === '/acks') {
    json({ ok: true, result: acks });
  } else if (/^\/bot[^/]+\/answerCallbackQuery$/.test(req.url)) {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      const params = body ? JSON.parse(body) : {};
      acks.push({ callback_query_id: String(params.callback_query_id), text: params.text ?? null });
      json({ ok: true, result: true });
    });
  } else {
    server.webServer(req, res);
  }
}).listen(0, '127.0.0.1', () => {
  const { port } = listener.address();
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}` }) + '\n');
});
