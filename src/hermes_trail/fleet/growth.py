"""How many connections a push writes on, when it is not told: found by measuring, as the push goes.

A push's time is the server's: each doc's text made ``tsvector``s, about one core a writing connection.
A server with cores to spare takes more docs a second on more connections, and so does a server far away,
whose round trips each writer waits on; a server without spare cores takes no more (on the test
machine's two cores, three or four writers push no faster than two). trail cannot ask PostgreSQL how many
cores it has, nor know the network, so it measures: a push starts on :data:`START` writers and, after
each window of batches written, adds one while the last one added wrote at least :data:`GAIN` of what
each writer wrote before it (2 to 3 writers at least 25 % faster, 7 to 8 at least 7 %); the first that
does not is retired and the count stays. A first push of a large history finds its count within a few
windows; a push of a few batches never grows.
"""

from __future__ import annotations

from dataclasses import dataclass

# Writers a push starts on: two cores' worth (most servers have them; a second also keeps the server busy
# while this process reads the next batch).
START = 2
# Writers a push grows to at most unless told (``trail share --writers N``, up to 32): each is a connection
# of a managed server's limit, beside the push's other two.
MOST = 8
# Batches each writer writes in a window: enough to average a batch's time, few enough that a first push
# of tens of thousands of docs tries a writer more.
WINDOW = 4
# The share of one writer's docs a second a writer added must add for it to stay (of the last window kept,
# divided by the writers that wrote it): less is noise, or a server with no core to spare.
GAIN = 0.5


@dataclass(slots=True)
class Growth:
    """The writers of one push, from the batches it wrote: :meth:`written` says when to add one or retire
    the last one added. ``started`` is when the first window began (the push's first batch queued)."""

    started: float
    writers: int = START
    most: int = MOST
    settled: bool = False
    # The window being measured: batches and docs written since ``since``.
    _since: float = 0.0
    _batches: int = 0
    _docs: int = 0
    # The first window, a batch a writer, fills the pipeline (a batch read before any is written): not
    # measured.
    _warm: bool = False
    _kept: float | None = None  # docs a second of the last window kept
    _trying: bool = False  # the last window ran on a writer just added

    def __post_init__(self) -> None:
        self._since = self.started
        self.settled = self.settled or self.writers >= self.most

    def written(self, docs: int, at: float) -> int:
        """A batch of ``docs`` written at ``at`` (``time.perf_counter()``): 1 to add a writer, -1 to
        retire the last one added, 0 to go on as it is."""
        if self.settled or at < self._since:  # written before the window began: not measured
            return 0
        self._batches += 1
        self._docs += docs
        if self._batches < (WINDOW if self._warm else 1) * self.writers:
            return 0
        rate = self._docs / max(at - self._since, 1e-9)
        self._since, self._batches, self._docs = at, 0, 0
        if not self._warm:
            self._warm = True
            return 0
        if self._trying and (self._kept is None or rate < self._kept * (1 + GAIN / (self.writers - 1))):
            self.settled, self._trying = True, False
            self.writers -= 1
            return -1
        self._kept = rate
        return self._grow()

    def began(self, at: float) -> None:
        """The writer :meth:`written` asked for (or retired) took its place at ``at``: the window being
        measured begins there, not before the connection was made."""
        self._since, self._batches, self._docs = at, 0, 0

    def refused(self) -> None:
        """The server took no connection for the writer :meth:`written` asked to add: the count stays as it
        was before."""
        if self._trying:
            self.writers -= 1
        self.settled, self._trying = True, False

    def _grow(self) -> int:
        if self.writers >= self.most:
            self.settled = True
            return 0
        self.writers += 1
        self._trying = True
        return 1
