"""A chat-completions server for the drafting tests: ``python tests/llm_server.py SCRIPT LOG``.

It speaks the OpenAI-compatible protocol on 127.0.0.1 (a free port, printed as the first line
of its output): each ``POST .../chat/completions`` gets the next answer of SCRIPT, a JSON list
of ``{"status": 200, "content": "...", "delay": 0, "headers": {}, "body": "..."}`` (``content``
is the assistant's message; ``body``, when given, is sent as it is instead of a completion); the
last answer repeats once the list is used up. Every request is logged to LOG as a JSON line
(path, model, whether an Authorization header came, the user message). The server stops by
itself after ``LIFETIME`` seconds.

The tests start it with :func:`start` (the ``llm_server`` fixture of conftest.py), write its
answers with :func:`answer` and read what it was sent with :func:`requests_of`.
"""

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

LIFETIME = 300


def start(script: list[dict], folder: Path) -> tuple[str, Path, subprocess.Popen]:
    """Start the server with ``script`` (its files in ``folder``): its base URL
    (``http://127.0.0.1:PORT/v1``), the log of the requests it gets, and the process."""
    (folder / "script.json").write_text(json.dumps(script), encoding="utf-8")
    log = folder / "requests.jsonl"
    process = subprocess.Popen(
        [sys.executable, __file__, str(folder / "script.json"), str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    port = int(process.stdout.readline())
    return f"http://127.0.0.1:{port}/v1", log, process


def answer(*questions: dict, fence: bool = False) -> dict:
    """A script entry: the model answers with these questions as JSON (in a fence: with prose)."""
    text = json.dumps({"questions": list(questions)})
    return {"content": f"Here you are:\n```json\n{text}\n```" if fence else text}


def requests_of(log: Path) -> list[dict]:
    """The requests the server logged, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def main(script_path: str, log_path: str) -> None:
    with open(script_path, encoding="utf-8") as f:
        script = json.load(f)
    lock = threading.Lock()
    served = [0]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            with lock:
                answer = script[min(served[0], len(script) - 1)]
                served[0] += 1
                with open(log_path, "a", encoding="utf-8") as log:
                    messages = request.get("messages") or [{}]
                    entry = {
                        "path": self.path,
                        "model": request.get("model"),
                        "authorization": self.headers.get("authorization"),
                        "user": messages[-1].get("content", ""),
                    }
                    log.write(json.dumps(entry) + "\n")
            if not self.path.endswith("/chat/completions"):
                answer = {"status": 404, "body": '{"error": {"message": "no such route"}}'}
            time.sleep(answer.get("delay", 0))
            body = answer.get("body")
            if body is None:
                body = json.dumps(
                    {
                        "id": f"chatcmpl-{served[0]}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": request.get("model"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": answer["content"]},
                                "finish_reason": "stop",
                            }
                        ],
                    }
                )
            data = body.encode("utf-8")
            try:
                self.send_response(answer.get("status", 200))
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in answer.get("headers", {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Timer(LIFETIME, server.shutdown).start()
    server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
