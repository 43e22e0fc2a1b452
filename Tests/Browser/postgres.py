"""A private PostgreSQL cluster for a browser test, from Debian's `postgresql` package (as Tests/TestSupport/
PostgresServer.swift starts one for the Swift tests): `initdb` into a temporary directory, `pg_ctl start` on a free
port (listening on 127.0.0.1 only, its socket in that directory), a fresh database per `make_database()`. `stop()`
stops it and removes the directory.

PostgreSQL refuses to run as root: as root (the tests run so here), its programs run as Debian's `postgres` user, who
owns the directory."""

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid


def binaries():
    """`/usr/lib/postgresql/<newest version>/bin`, or None when PostgreSQL is not installed."""
    versions = sorted((int(os.path.basename(p)) for p in glob.glob("/usr/lib/postgresql/*") if os.path.basename(p).isdigit()), reverse=True)
    for version in versions:
        path = f"/usr/lib/postgresql/{version}/bin"
        if os.access(os.path.join(path, "initdb"), os.X_OK):
            return path
    return None


def free_port():
    """A port nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    user = "ralph"

    def __init__(self):
        self.bin = binaries()
        if not self.bin:
            raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql (the test starts a private cluster with initdb and pg_ctl)")
        self.directory = tempfile.mkdtemp(prefix="rm-pg-")
        self.as_root = os.getuid() == 0
        if self.as_root:
            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no postgres user to run PostgreSQL as")
            os.chown(self.directory, account.pw_uid, account.pw_gid)
        self.port = free_port()
        self.started = False

    def start(self):
        self.run("initdb", "-D", self.data, "-U", self.user, "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self.run("pg_ctl", "-D", self.data, "-l", os.path.join(self.directory, "server.log"), "-o", options, "-w", "start")
        self.started = True
        return self

    @property
    def data(self):
        return os.path.join(self.directory, "data")

    def make_database(self, name=None):
        """A new, empty database; its URL."""
        name = name or "rm_" + uuid.uuid4().hex[:8]
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, name)
        return f"postgres://{self.user}@127.0.0.1:{self.port}/{name}"

    def stop(self):
        """Stops the server (connections cut at once) and removes its files."""
        try:
            if self.started:
                self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        finally:
            self.started = False
            shutil.rmtree(self.directory, ignore_errors=True)

    def run(self, program, *arguments):
        """Runs a PostgreSQL program (as the `postgres` user when we are root) to its end; its output."""
        argv = [os.path.join(self.bin, program), *arguments]
        if self.as_root:
            argv = ["/usr/sbin/runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, cwd="/", env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            log = ""
            try:
                with open(os.path.join(self.directory, "server.log")) as f:
                    log = f.read()[-2000:]
            except OSError:
                pass
            raise RuntimeError(f"{program} {' '.join(arguments)} failed ({done.returncode}): {done.stderr[-2000:]}\n{log}")
        return done.stdout
