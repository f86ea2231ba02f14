/**
 * What a process says when it cannot listen where its configuration tells it to (the API's port, the
 * metrics port, the operator socket): one sentence naming the address and the variable to change,
 * instead of a stack trace, and the exit code: 75 (EX_TEMPFAIL) when another process holds the address
 * (it may let go: trying again later can work), 78 (EX_CONFIG, as a configuration refused at start)
 * when the address is refused or is none of this machine's (the configuration must change). Undefined
 * for an error that is not about the address (it is then thrown).
 */
export function listenFailure(
  error: unknown,
  what: {
    /** What was to listen: "the API", "the metrics endpoint", "the operator socket". */
    name: string;
    /** host:port, or the socket's path. */
    address: string;
    /** The setting that moves it: "PORT", "PARASOL_METRICS_PORT", "PARASOL_DATA_DIR". */
    variable: string;
  },
): { message: string; exitCode: 75 | 78 } | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const at = `${what.name} cannot listen on ${what.address}`;
  const other = what.variable.endsWith('PORT') ? 'port' : 'value';
  if (code === 'EADDRINUSE')
    return {
      message: `${at}: another process is using it. Stop that process, or set ${what.variable} to another ${other}.`,
      exitCode: 75,
    };
  if (code === 'EACCES')
    return {
      message: `${at}: permission denied${what.variable.endsWith('PORT') ? ' (a port below 1024 needs privileges)' : ''}. Set ${what.variable} to another ${other}.`,
      exitCode: 78,
    };
  if (code === 'EADDRNOTAVAIL')
    return {
      message: `${at}: no network interface of this machine has that address. Set HOST to one of its addresses (0.0.0.0: all of them).`,
      exitCode: 78,
    };
  return undefined;
}

/** host:port as a URL writes it ([::1]:3000). */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The operator socket's address as an operator reads it: an abstract one (Linux) written @name. */
export function socketAddressText(address: string): string {
  return address.startsWith('\0') ? `@${address.slice(1)} (abstract socket)` : address;
}
