import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { EmailRejectedError, EmailRetryableError } from '../../src/notify/email/email.ts';
import { OutboxEmailProvider } from '../../src/notify/email/outbox.ts';
import { SmtpEmailProvider, smtpBlame } from '../../src/notify/email/smtp.ts';

/** The SMTP provider against a real SMTP server on a local port (smtp-server, by nodemailer's authors). */

interface Received {
  from: string | undefined;
  to: string[];
  mail: ParsedMail;
}

async function startServer(options: Partial<SMTPServerOptions> = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'parasol' && auth.password === 'smtp secret') return callback(null, { user: 'parasol' });
      return callback(Object.assign(new Error('Invalid credentials'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
            mail,
          });
          callback();
        })
        .catch(callback);
    },
    ...options,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    received,
    port,
    provider: (extra: { user?: string; password?: string } = {}) =>
      new SmtpEmailProvider({
        host: '127.0.0.1',
        port,
        secure: false,
        user: extra.user,
        password: extra.password,
        from: 'Parasol <no-reply@parasol.example>',
        timeoutMs: 5_000,
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const message = {
  to: 'new.user@acme.example',
  subject: 'You are invited to the Parasol console of Acme Air',
  text: 'Hello,\n\nChoose your password here:\nhttps://parasol.example/portal/password/abc\n',
  html: '<p>Hello,</p><p><a href="https://parasol.example/portal/password/abc">Choose your password</a></p>',
  dedupeKey: 'user:1:invitation:abcd',
};

describe('SmtpEmailProvider', () => {
  it('delivers From, To, Subject, text and html, with a Message-ID derived from the dedupe key', async (t) => {
    const server = await startServer();
    t.after(server.close);
    const provider = server.provider({ user: 'parasol', password: 'smtp secret' });
    t.after(() => provider.close());
    const sent = await provider.send(message);
    const again = await provider.send(message);

    assert.equal(server.received.length, 2);
    const [first, second] = server.received as [Received, Received];
    assert.equal(first.from, 'no-reply@parasol.example');
    assert.deepEqual(first.to, ['new.user@acme.example']);
    assert.equal(first.mail.from?.value[0]?.address, 'no-reply@parasol.example');
    assert.equal(first.mail.from?.value[0]?.name, 'Parasol');
    assert.equal(first.mail.subject, message.subject);
    assert.equal(first.mail.text, message.text);
    assert.equal(first.mail.html, message.html);
    assert.match(sent.providerMessageId, /^<[0-9a-f]{32}@parasol\.example>$/);
    assert.equal(first.mail.messageId, sent.providerMessageId);
    // a message sent twice (a crash between the send and its record) is the same message for the receiver
    assert.equal(second.mail.messageId, first.mail.messageId);
    assert.equal(again.providerMessageId, sent.providerMessageId);
  });

  it('a 4xx answer is retryable, a 5xx answer is final', async (t) => {
    const server = await startServer({
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('busy'))
          return callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 450 }));
        if (address.address.startsWith('nobody'))
          return callback(Object.assign(new Error('No such user'), { responseCode: 550 }));
        return callback();
      },
    });
    t.after(server.close);
    const provider = server.provider();
    t.after(() => provider.close());

    const busy = await provider.send({ ...message, to: 'busy@acme.example' }).catch((e: unknown) => e);
    assert.ok(busy instanceof EmailRetryableError, String(busy));
    assert.equal(busy.responseCode, 450);
    assert.equal(busy.notSent, true, 'a 4xx: the server did not take it');
    assert.doesNotMatch(busy.message, /acme\.example/, 'no address in the error');

    const nobody = await provider.send({ ...message, to: 'nobody@acme.example' }).catch((e: unknown) => e);
    assert.ok(nobody instanceof EmailRejectedError, String(nobody));
    assert.equal(nobody.responseCode, 550);
    assert.equal(nobody.recipient, true, "a 550 to RCPT: the customer's address");
    assert.equal(server.received.length, 0);
  });

  it("a 5xx reply blaming the address is final and the recipient's; one blaming our server is retried, never the customer's", async (t) => {
    const replies: Record<string, [number, string]> = {
      bad: [550, '5.1.1 No such user here'],
      nomx: [550, '5.1.10 Recipient address has null MX'],
      disabled: [554, '5.2.1 Mailbox disabled'],
      relay: [554, '5.7.1 Relay access denied'],
      policy: [554, 'Transaction failed'],
      auth: [530, '5.7.0 Authentication required'],
      spam: [550, '5.7.1 Message refused as spam'],
    };
    const server = await startServer({
      onRcptTo(address, _session, callback) {
        const reply = replies[address.address.split('@')[0]!];
        if (reply) return callback(Object.assign(new Error(reply[1]), { responseCode: reply[0] }));
        return callback();
      },
    });
    t.after(server.close);
    const provider = server.provider();
    t.after(() => provider.close());
    const send = (user: string) => provider.send({ ...message, to: `${user}@acme.example` }).catch((e: unknown) => e);

    for (const user of ['bad', 'nomx', 'disabled']) {
      const error = await send(user);
      assert.ok(error instanceof EmailRejectedError, `${user}: ${String(error)}`);
      assert.equal(error.recipient, true, user);
      assert.equal(error.responseCode, replies[user]![0]);
      assert.match(
        error.message,
        new RegExp(`SMTP ${replies[user]![0]} ${replies[user]![1].split(' ')[0]!.replace(/\./g, '\\.')} to RCPT`),
      );
      assert.doesNotMatch(error.message, /acme\.example/, 'no address in the error');
    }
    for (const user of ['relay', 'policy', 'auth', 'spam']) {
      const error = await send(user);
      assert.ok(error instanceof EmailRetryableError, `${user}: ${String(error)}`);
      assert.equal(error.reason, 'refused', user);
      assert.equal(error.atLogin, false, `${user}: refused at RCPT TO, one message's: the SMTP circuit stays closed`);
      assert.equal(error.notSent, true, `${user}: the server took nothing, the attempt is given back`);
    }
    assert.equal(server.received.length, 0);
  });

  it('smtpBlame: RFC 3463 enhanced codes first, then the basic code and the step', () => {
    const cases: [number, string | undefined, string | undefined, string][] = [
      [550, '550 5.1.1 <x@y> User unknown', 'RCPT TO:<x@y>', 'recipient'],
      [550, '550 5.1.10 null MX', 'RCPT TO:<x@y>', 'recipient'],
      [550, '550-5.2.1 The email account is disabled', 'RCPT TO:<x@y>', 'recipient'],
      [553, '553 mailbox name not allowed', 'RCPT TO:<x@y>', 'recipient'],
      [551, '551 user not local', 'RCPT TO:<x@y>', 'recipient'],
      [554, '554 5.1.1 unknown user', 'DATA', 'recipient'],
      [553, '553 5.1.8 Sender domain does not exist', 'RCPT TO:<x@y>', 'provider'],
      [550, '550 5.1.7 bad sender', 'RCPT TO:<x@y>', 'provider'],
      [550, '550 sender rejected', 'MAIL FROM:<no-reply@parasol.example>', 'provider'],
      [554, '554 Transaction failed', 'DATA', 'provider'],
      [554, '554 5.7.1 Relay access denied', 'RCPT TO:<x@y>', 'provider'],
      [530, '530 5.7.0 Authentication required', 'MAIL FROM:<a@b>', 'provider'],
      [530, '530 Must issue STARTTLS first', 'RCPT TO:<x@y>', 'provider'],
      [535, '535 5.7.8 Bad credentials', 'AUTH PLAIN', 'provider'],
      [550, '550 5.7.1 Service unavailable, client host blocked', 'RCPT TO:<x@y>', 'provider'],
      [550, '550 5.6.0 content refused', 'DATA', 'message'],
      [552, '552 5.2.3 message too big', 'DATA', 'message'],
      [552, '552 storage exceeded', 'DATA', 'message'],
      // without an enhanced code, a 550/551/553 is the recipient's at RCPT TO only
      [550, undefined, undefined, 'provider'],
      [550, '550 Access denied, your IP is blocklisted', 'CONN', 'provider'],
      [550, '550 not welcome', 'EHLO parasol.example', 'provider'],
      [550, '550 not welcome', 'HELO parasol.example', 'provider'],
      [550, '550 not welcome', 'LHLO parasol.example', 'provider'],
      [553, '553 TLS refused', 'STARTTLS', 'provider'],
      [551, '551 no', 'RSET', 'provider'],
      [550, '550 refused', 'API', 'provider'],
      [550, '550 message refused', 'DATA', 'message'],
      [553, '553 message refused', 'DATA', 'message'],
      // a full mailbox lasts but is not a bad address; a message too big is the message's
      [552, '552 5.2.2 Mailbox full', 'RCPT TO:<x@y>', 'message'],
      [550, '550 5.2.2 Mailbox full', 'DATA', 'message'],
      [552, '552 5.3.4 Message too big for system', 'DATA', 'message'],
      [554, '554 5.3.0 mail system error', 'DATA', 'provider'],
    ];
    for (const [code, response, command, blame] of cases)
      assert.equal(smtpBlame(code, response, command), blame, `${response ?? code} to ${command ?? '?'}`);
  });

  it("a bare 550 at the greeting (our IP blocklisted) is retried as an outage, never the customer's", async (t) => {
    const server = await startServer({
      onConnect(_session, callback) {
        callback(Object.assign(new Error('Access denied, your IP is blocklisted'), { responseCode: 550 }));
      },
    });
    t.after(server.close);
    const provider = server.provider();
    t.after(() => provider.close());
    const error = await provider.send(message).catch((e: unknown) => e);
    assert.ok(error instanceof EmailRetryableError, String(error));
    assert.equal(error.reason, 'refused');
    assert.equal(error.atLogin, true, 'at the greeting: every message meets it');
    assert.equal(error.responseCode, 550);
    assert.equal(error.notSent, true);
    assert.equal(server.received.length, 0);
  });

  it('refused credentials are retried as an outage (ours to fix); a server that cannot be reached is retryable', async (t) => {
    const server = await startServer();
    t.after(server.close);
    const wrong = server.provider({ user: 'parasol', password: 'wrong' });
    t.after(() => wrong.close());
    const refused = await wrong.send(message).catch((e: unknown) => e);
    assert.ok(refused instanceof EmailRetryableError, String(refused));
    assert.equal(refused.reason, 'refused');
    assert.equal(refused.atLogin, true);
    assert.equal(refused.responseCode, 535);
    assert.equal(refused.notSent, true);

    const closed = await startServer();
    const port = closed.port;
    await closed.close();
    const unreachable = new SmtpEmailProvider({
      host: '127.0.0.1',
      port,
      secure: false,
      user: undefined,
      password: undefined,
      from: 'no-reply@parasol.example',
      timeoutMs: 2_000,
    });
    t.after(() => unreachable.close());
    const down = await unreachable.send(message).catch((e: unknown) => e);
    assert.ok(down instanceof EmailRetryableError, String(down));
    assert.equal(down.notSent, true, 'no connection: nothing sent');
  });
});

/**
 * A bare SMTP server that takes the whole message, then closes the connection (`close`) or says
 * nothing (`hang`) instead of its 250: the message may be on its way, the attempt must count.
 */
async function startSilentAfterData(after: 'close' | 'hang') {
  let messages = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.write('220 test ESMTP\r\n');
    let inData = false;
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      for (let i = buffer.indexOf('\r\n'); i >= 0; i = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            messages++;
            if (after === 'close') socket.destroy();
          }
          continue;
        }
        const command = line.slice(0, 4).toUpperCase();
        if (command === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (command === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    messages: () => messages,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('SmtpEmailProvider: an attempt that may have delivered counts', () => {
  for (const after of ['close', 'hang'] as const) {
    it(`the server took the whole message, then ${after === 'close' ? 'closed the connection' : 'never answered'}: retryable, not given back`, async (t) => {
      const server = await startSilentAfterData(after);
      t.after(server.close);
      const provider = new SmtpEmailProvider({
        host: '127.0.0.1',
        port: server.port,
        secure: false,
        user: undefined,
        password: undefined,
        from: 'Parasol <no-reply@parasol.example>',
        timeoutMs: 1_000,
      });
      t.after(() => provider.close());
      const lost = await provider.send(message).catch((e: unknown) => e);
      assert.equal(server.messages(), 1, 'the server got the whole message');
      assert.ok(lost instanceof EmailRetryableError, String(lost));
      assert.equal(lost.notSent, false, 'the message may have been delivered: the attempt counts');
    });
  }
});

describe('OutboxEmailProvider', () => {
  it('keeps the message (sends nothing) under an id stable for its dedupe key; refuses a non-address', async () => {
    const outbox = new OutboxEmailProvider();
    const a = await outbox.send(message);
    assert.equal((await outbox.send(message)).providerMessageId, a.providerMessageId);
    assert.notEqual((await outbox.send({ ...message, dedupeKey: 'other' })).providerMessageId, a.providerMessageId);
    await assert.rejects(outbox.send({ ...message, to: 'not an address' }), EmailRejectedError);
    // one recipient only: nodemailer would read these as lists and write to each
    for (const to of ['a,b@example.com', 'a@example.com,b@example.org', 'a@example.com;b@example.org'])
      await assert.rejects(outbox.send({ ...message, to }), EmailRejectedError, to);
  });
});
