import type { FastifyInstance } from 'fastify';
import { HANDSHAKE_LIMITS, startOperatorSocket } from '../platform/operator-socket.ts';
import { runCli } from './program.ts';

/**
 * The server's side of the CLI on the embedded database: runs the commands the CLI sends over the
 * data directory's operator socket (platform/operator-socket.ts) in this process, with the server's
 * database, configuration, keyring and job queue: the same runCli as a local command, so the output
 * and exit code are the same. Returns the socket's close function.
 */
export async function startOperatorCommands(app: FastifyInstance): Promise<() => Promise<void>> {
  const { config, db, keys, jobs } = app.parasol;
  return startOperatorSocket(
    config.dataDir,
    async (request, io) => {
      app.log.info(
        {
          command: request.argv
            .filter((a) => !a.startsWith('-'))
            .slice(0, 2)
            .join(' '),
          actor: request.actor,
        },
        'operator command',
      );
      return runCli(request.argv, {
        db,
        config,
        keys,
        jobs,
        applied: [],
        actor: request.actor,
        out: io.out,
        err: io.err,
        readStdin: io.readStdin,
        readFile: async (file, maxBytes) => (await io.readFile(file, maxBytes)).toString('utf8'),
        readBytes: io.readFile,
        writeBytes: io.writeFile,
      });
    },
    (err) => app.log.warn({ err }, 'operator socket error'),
    { ...HANDSHAKE_LIMITS, timeoutMs: config.operatorHandshakeSeconds * 1000 },
  );
}
