"""A TCP relay that holds every chunk a given time each way, in order: a PostgreSQL server far away (a
managed server in another region) on a machine whose kernel has no ``netem``.

Usage (as a process of its own, so its work shares no interpreter with the one it measures)::

    python bench/relay.py LISTEN_PORT TARGET_PORT DELAY_MS

It prints ``ready`` once it listens. Each chunk read is written on after ``DELAY_MS``: a round trip
through it takes twice that more than the link itself. Bandwidth is not limited.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    held: asyncio.Queue[tuple[float, bytes | None]] = asyncio.Queue()

    async def send() -> None:
        while True:
            due, data = await held.get()
            if data is None:
                writer.close()
                return
            if (wait := due - time.monotonic()) > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()

    sending = asyncio.create_task(send())
    try:
        while data := await reader.read(65536):
            held.put_nowait((time.monotonic() + delay, data))
    finally:
        held.put_nowait((0.0, None))
        with contextlib.suppress(ConnectionError):
            await sending


async def _serve(listen: int, target: int, delay: float) -> None:
    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        there_reader, there_writer = await asyncio.open_connection("127.0.0.1", target)
        await asyncio.gather(
            _pipe(reader, there_writer, delay), _pipe(there_reader, writer, delay), return_exceptions=True
        )

    server = await asyncio.start_server(relay, "127.0.0.1", listen)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


@contextlib.contextmanager
def far(target: int, delay_ms: float) -> Iterator[int]:
    """A relay to ``127.0.0.1:target`` holding each chunk ``delay_ms`` each way, for the block; its port."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), str(port), str(target), str(delay_ms)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        yield port
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    asyncio.run(_serve(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000))
