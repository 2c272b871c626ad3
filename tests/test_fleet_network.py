"""The shared index over a network that goes silent: a long-lived caller's connection whose packets are
dropped without a word (a firewall or NAT that forgot the connection, a link gone) ends within a minute,
and the next question connects again, where a question on it waited for TCP to give up (a quarter of an
hour on Linux).

The caller runs in a network namespace of its own, joined to this one by a veth pair, and reaches the test
server through a relay on the pair's far end; taking that end down drops every packet, as such a network
does. Needs root and ``ip`` (iproute2); the run is about a minute, so it is among the slow tests.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_trail.fleet import schema
from hermes_trail.fleet.connection import connect
from hermes_trail.fleet.push import push
from hermes_trail.index.sync import sync_index
from pgserver import DATABASE, start_cluster

pytestmark = [pytest.mark.pg, pytest.mark.slow]

# What the caller in the namespace runs: a search, then at each word from the test another, each answer
# (its conversations, or its error) and how long it took as one JSON line.
CALLER = """
import json, sys, time
from hermes_trail.service import Trail
trail = Trail(fleet=sys.argv[1])
for line in sys.stdin:
    started = time.monotonic()
    try:
        answer = [c.root for c in trail.search_result("printer paper").conversations]
    except Exception as exc:
        answer = f"{type(exc).__name__}: {exc}"
    print(json.dumps({"answer": answer, "seconds": time.monotonic() - started}), flush=True)
"""


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Link:
    """A network namespace joined to this one by a veth pair: ``near`` is this side's address, which the
    namespace reaches; :meth:`cut` drops every packet between them, :meth:`mend` lets them through."""

    def __init__(self) -> None:
        tag = f"{os.getpid() % 10000}{random.randrange(100)}"
        self.space, self.here, self.there = f"trail{tag}", f"trh{tag}", f"trn{tag}"
        net = random.randrange(1, 250)
        self.near, self.far = f"10.231.{net}.1", f"10.231.{net}.2"
        _ip("netns", "add", self.space)
        try:
            _ip("link", "add", self.here, "type", "veth", "peer", "name", self.there)
            _ip("link", "set", self.there, "netns", self.space)
            _ip("addr", "add", f"{self.near}/30", "dev", self.here)
            _ip("link", "set", self.here, "up")
            _ip("netns", "exec", self.space, "ip", "addr", "add", f"{self.far}/30", "dev", self.there)
            _ip("netns", "exec", self.space, "ip", "link", "set", self.there, "up")
        except BaseException:
            self.remove()
            raise

    def cut(self) -> None:
        _ip("link", "set", self.here, "down")

    def mend(self) -> None:
        _ip("link", "set", self.here, "up")

    def remove(self) -> None:
        subprocess.run(["ip", "link", "del", self.here], capture_output=True, timeout=30)
        subprocess.run(["ip", "netns", "del", self.space], capture_output=True, timeout=30)


def _relay(listen: socket.socket, port: int) -> None:
    """Each connection accepted on ``listen`` joined to the server on loopback ``port``, byte for byte."""

    def pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    while True:
        try:
            client, _ = listen.accept()
        except OSError:
            return
        server = socket.create_connection(("127.0.0.1", port))
        for a, b in ((client, server), (server, client)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()


def _migrated_with_errands(admin: str, tmp_path: Path) -> Path:
    """The shared index at ``admin`` migrated, and a local index of errands Hermes wrote to push to it."""
    from hermesdb import errands, write_home

    with connect(admin) as conn:
        schema.migrate(conn, admin)
    home = write_home(tmp_path / "hermes", errands(1_800_000_000.0, "20261201", "5e5e5e"))
    index = tmp_path / "index.db"
    sync_index(index, homes=[home], parallel=False)
    return index


@pytest.fixture
def link() -> Iterator[Link]:
    required = os.environ.get("TRAIL_REQUIRE_PG") == "1"
    if (os.geteuid() != 0 or shutil.which("ip") is None) and not required:
        pytest.skip("needs root and ip (iproute2) for a network namespace")
    made = Link()
    yield made
    made.remove()


def test_a_question_on_a_connection_the_network_dropped_ends_and_the_next_connects_again(
    pg_cluster, link, tmp_path
):
    name = f"silent{os.getpid()}"
    with pg_cluster.connect("postgres") as conn:
        conn.execute(f"CREATE DATABASE {name}")
    admin = pg_cluster.dsn(database=name)
    index = _migrated_with_errands(admin, tmp_path)
    push(index, admin, "alpha")
    listen = socket.create_server((link.near, 0))
    threading.Thread(target=_relay, args=(listen, pg_cluster.port), daemon=True).start()
    far = admin.replace(f"127.0.0.1:{pg_cluster.port}", f"{link.near}:{listen.getsockname()[1]}")
    caller = subprocess.Popen(
        ["ip", "netns", "exec", link.space, sys.executable, "-c", CALLER, far],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TRAIL_MEANING_SERVER": "0"},
    )

    def ask() -> dict:
        assert caller.stdin is not None and caller.stdout is not None
        caller.stdin.write("ask\n")
        caller.stdin.flush()
        line = caller.stdout.readline()
        assert line, caller.stderr.read() if caller.stderr else ""
        return json.loads(line)

    try:
        first = ask()
        assert isinstance(first["answer"], list) and first["answer"], first
        link.cut()  # every packet between the caller and the server dropped from now on
        timer = threading.Timer(150, caller.kill)  # a question left waiting on TCP: the old behaviour
        timer.start()
        lost = ask()
        timer.cancel()
        assert isinstance(lost["answer"], str) and "FleetError" in lost["answer"], lost
        assert lost["seconds"] < 90, lost
        link.mend()
        again = ask()
        assert again["answer"] == first["answer"], again
    finally:
        caller.kill()
        caller.wait(timeout=30)
        listen.close()


# What the pushing machine in the namespace runs: the host's push lock taken as a push takes it, held as
# while its writers work, until the machine is gone from the network (a laptop's lid closed mid-push).
HOLDER = """
import sys, time
from hermes_trail.fleet.push import _host_lock
with _host_lock(sys.argv[1], sys.argv[2]):
    print("locked", flush=True)
    time.sleep(900)
"""


def test_a_push_cut_off_by_the_network_lets_the_hosts_next_push_through_within_minutes(link, tmp_path):
    """A machine gone from the network mid-push (its link dropped, its packets with it) left its push's
    transaction open on the server, the host's lock with it, until the server's TCP gave up on it: two
    hours and more with Linux's defaults, every later push of that host waiting behind it. The push's
    transactions have the server probe their client (``tcp_keepalives_*``, the transaction's own), so the
    server ends one whose client stopped answering within about a minute, and the next push goes through."""
    import psycopg

    cluster = start_cluster(tmp_path / "pg", also=link.near)
    try:
        admin = cluster.dsn(database=DATABASE)
        index = _migrated_with_errands(admin, tmp_path)
        far = admin.replace("127.0.0.1", link.near)
        holder = subprocess.Popen(
            ["ip", "netns", "exec", link.space, sys.executable, "-c", HOLDER, far, "alpha"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "locked\n", holder.stderr
            time.sleep(1.0)  # its last answer acknowledged: the lock's connection idle, as during a push
            link.cut()  # the machine is gone: nothing it sends arrives, nothing reaches it
            done: list = []
            started = time.monotonic()
            pushing = threading.Thread(target=lambda: done.append(push(index, admin, "alpha")), daemon=True)
            pushing.start()
            pushing.join(timeout=180)
            took = time.monotonic() - started
            assert done and done[0].pushed == done[0].sessions > 0, f"still waiting after {took:.0f} s"
            assert took < 150
            with psycopg.connect(admin, autocommit=True) as conn:
                gone = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE client_addr = %s", (link.far,)
                ).fetchone()
            assert gone == (0,)
        finally:
            holder.kill()
            holder.wait(timeout=30)
    finally:
        cluster.stop()
