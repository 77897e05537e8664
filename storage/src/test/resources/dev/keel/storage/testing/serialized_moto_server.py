"""moto's server, handling one request at a time.

moto answers a PUT with If-None-Match: * by looking the key up and then writing it, two steps that
the threads of its stock server (moto_server) can interleave, so two racing conditional PUTs may
both succeed. S3 itself makes that PUT atomic, and Delta's commit protocol relies on it; one lock
around each request gives moto the same guarantee. Usage: serialized_moto_server.py HOST PORT
"""

import sys
import threading

from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple

app = DomainDispatcherApplication(create_backend_app)
one_at_a_time = threading.Lock()


def serialized(environ, start_response):
    with one_at_a_time:
        # the body is produced inside the lock too: a streamed response is still moto's work
        return list(app(environ, start_response))


if __name__ == "__main__":
    run_simple(
        sys.argv[1],
        int(sys.argv[2]),
        serialized,
        threaded=True,
        request_handler=MotoRequestHandler,
    )
