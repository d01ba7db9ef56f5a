"""A minimal process pool for a parent with a single thread: workers forked directly,
one pair of pipes each, and no threads in the parent.

`run_sweep` uses it whenever fork() is safe (the `ncmesh sweep` command, a script),
instead of `concurrent.futures.ProcessPoolExecutor`, which needs two helper threads in
the parent (they contend for the GIL with the main thread and steal the workers' CPU
each time a batch ends) and multiprocessing's start-up (about 10 ms of imports). Here
the parent sleeps in select() until a worker answers, and knows which tasks a dead
worker had, so only those are lost.

Messages are pickles with an 8-byte length prefix. A worker runs the tasks of its pipe
in order; the parent keeps up to `depth` tasks queued per worker, so that a worker
finishing one finds the next already in its pipe. The parent never blocks on a write
(task pipes are non-blocking; what does not fit waits in a buffer until select() says
the pipe has room), so a worker writing a large result can never wait on a parent that
waits on it.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
from collections import deque
from typing import Any, Callable

_HEADER = struct.Struct("<Q")


class WorkerDied(Exception):
    """The worker running a task ended (killed, out of memory, os._exit) before answering.
    `.pid`: that worker."""

    def __init__(self, message: str, pid: int = 0):
        super().__init__(message)
        self.pid = pid


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, n: int) -> bytes | None:
    """n bytes from fd, or None at end of file."""
    chunks, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _message(obj: Any) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


def _receive(fd: int) -> Any:
    """The next message, or raises EOFError."""
    header = _read_exact(fd, _HEADER.size)
    if header is None:
        raise EOFError
    data = _read_exact(fd, _HEADER.unpack(header)[0])
    if data is None:
        raise EOFError
    return pickle.loads(data)


def _serve(tasks: int, results: int) -> None:
    """A worker's loop: run (fn, args) messages until the task pipe closes."""
    while True:
        try:
            fn, args = _receive(tasks)
        except EOFError:
            return
        try:
            reply = (True, fn(*args))
        except Exception as e:  # noqa: BLE001 - handed to the parent
            reply = (False, e)
        try:
            data = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as e:  # noqa: BLE001 - an unpicklable result or exception
            data = pickle.dumps((False, RuntimeError(f"{type(e).__name__}: {e}")))
        _write_all(results, _HEADER.pack(len(data)) + data)


class _Worker:
    __slots__ = ("pid", "tasks", "results", "queue", "out")

    def __init__(self, pid: int, tasks: int, results: int):
        self.pid, self.tasks, self.results = pid, tasks, results
        self.queue: deque = deque()        # task ids sent, oldest first
        self.out = bytearray()             # bytes for the task pipe that did not fit yet

    def flush(self) -> None:
        """Writes what the task pipe takes now (it is non-blocking)."""
        while self.out:
            try:
                n = os.write(self.tasks, self.out)
            except BlockingIOError:
                return
            except OSError:                # the worker is gone: wait() reports its tasks
                self.out.clear()
                return
            del self.out[:n]


class ForkPool:
    """`workers` forked processes running `initializer()` once, then tasks, then
    `finalizer()` when their task pipe closes (`shutdown`; not when terminated).

    submit(fn, *args) -> task id; wait(timeout) -> [(task id, ok, value)] where value
    is the result (ok) or the exception (a WorkerDied for each task a dead worker had;
    the worker is replaced). Call only from the thread that made the pool, in a process
    with no other threads (fork)."""

    def __init__(self, workers: int, initializer: Callable[[], None] | None = None,
                 finalizer: Callable[[], None] | None = None, depth: int = 2):
        self.size, self.initializer, self.finalizer, self.depth = max(1, workers), initializer, finalizer, depth
        self.workers: dict[int, _Worker] = {}       # results fd -> worker
        self.pending: deque = deque()               # (task id, fn, args) not sent yet
        self.next_id = 0
        for _ in range(self.size):
            self._spawn()

    # --- workers
    def _spawn(self) -> None:
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        pid = os.fork()
        if pid == 0:                                  # the worker
            code = 1
            try:
                os.close(task_w)
                os.close(result_r)
                for w in self.workers.values():       # the other workers' ends
                    os.close(w.tasks)
                    os.close(w.results)
                if self.initializer is not None:
                    self.initializer()
                _serve(task_r, result_w)
                if self.finalizer is not None:
                    self.finalizer()
                code = 0
            except BaseException:  # noqa: BLE001
                pass
            finally:
                os._exit(code)
        os.close(task_r)
        os.close(result_w)
        os.set_blocking(task_w, False)
        self.workers[result_r] = _Worker(pid, task_w, result_r)

    def _close(self, w: _Worker) -> None:
        for fd in (w.tasks, w.results):
            try:
                os.close(fd)
            except OSError:
                pass
        del self.workers[w.results]

    # --- tasks
    def submit(self, fn: Callable, *args) -> int:
        task = self.next_id
        self.next_id += 1
        self.pending.append((task, fn, args))
        self._dispatch()
        return task

    def _dispatch(self) -> None:
        """Sends pending tasks to the workers with the fewest queued (at most `depth`)."""
        while self.pending:
            w = min(self.workers.values(), key=lambda w: len(w.queue), default=None)
            if w is None or len(w.queue) >= self.depth:
                return
            task, fn, args = self.pending.popleft()
            w.queue.append(task)
            w.out += _message((fn, args))
            w.flush()

    def wait(self, timeout: float | None = None) -> list[tuple[int, bool, Any]]:
        """The tasks that ended (at least one, unless the timeout passed first)."""
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        done: list[tuple[int, bool, Any]] = []
        while self.workers and not done:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            writing = [w.tasks for w in self.workers.values() if w.out]
            ready, writable, _ = select.select(list(self.workers), writing, [], left)
            if writable:
                for w in list(self.workers.values()):
                    if w.tasks in writable:
                        w.flush()
            answering = [self.workers[fd] for fd in ready]
            dead = 0
            for w in answering:
                replies = self._answer(w)
                dead += w.results not in self.workers
                done.extend(replies)
            for _ in range(dead):          # (after the loop: a new worker may reuse an fd number)
                self._spawn()
            if not ready and not writable:
                break                      # timed out
        self._dispatch()
        return done

    def _answer(self, w: _Worker) -> list[tuple[int, bool, Any]]:
        """The next reply of worker w, or WorkerDied for each of its tasks if it ended
        (it is then removed; the caller starts a new one)."""
        try:
            ok, value = _receive(w.results)
        except (EOFError, OSError):
            try:
                _, status = os.waitpid(w.pid, 0)
                why = _exit_reason(status)
            except ChildProcessError:
                why = "ended"
            lost = [(task, False, WorkerDied(f"worker process {w.pid} {why}", w.pid)) for task in w.queue]
            self._close(w)
            return lost
        return [(w.queue.popleft(), ok, value)]

    # --- the end
    def shutdown(self) -> None:
        """Lets the workers finish their tasks and exit; waits for them."""
        for w in list(self.workers.values()):
            if w.out:
                os.set_blocking(w.tasks, True)
                w.flush()
            os.close(w.tasks)
        for w in list(self.workers.values()):
            try:
                os.waitpid(w.pid, 0)
            except ChildProcessError:
                pass
            os.close(w.results)
        self.workers.clear()

    def terminate(self) -> None:
        """Stops the workers now (SIGTERM, then SIGKILL after 5 s) and waits for them."""
        for w in self.workers.values():
            try:
                os.kill(w.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for w in list(self.workers.values()):
            _reap(w.pid, 5.0)
            self._close(w)


def _exit_reason(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return f"was killed by {name}"
    return f"exited with status {os.WEXITSTATUS(status)}" if os.WIFEXITED(status) else "ended"


def _reap(pid: int, timeout: float) -> None:
    import time

    deadline = time.monotonic() + timeout
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        if time.monotonic() > deadline:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            return
        time.sleep(0.01)
