"""Where a request ends, as the web server's event loop judges it before giving the
connection to a thread: too early would make a thread wait for the client, too late
would keep a complete request waiting for its time-out."""
from __future__ import annotations

from gunicorn.http import errors as http_errors
from hypothesis import given
from hypothesis import strategies as st

from service.http.gunicorn_worker import Framing, Limits, Refusal, refusal_for, request_framing

LIMITS = Limits(request_line=4096, header_block=64 * 1024, body=1024 * 1024)


def post(body: bytes, *headers: bytes) -> bytes:
    return b"POST /v1/players HTTP/1.1\r\nHost: x\r\n" + b"".join(h + b"\r\n" for h in headers) + b"\r\n" + body


def chunked(body: bytes, sizes: list[int]) -> bytes:
    out, position = b"", 0
    for size in sizes:
        out += b"%x\r\n%s\r\n" % (size, body[position:position + size])
        position += size
    return out + b"0\r\n\r\n"


def test_a_request_without_a_body_ends_with_its_headers():
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    assert request_framing(request, LIMITS) == Framing(len(request))
    assert request_framing(request[:-1], LIMITS) == Framing(None)


def test_a_body_of_known_length_is_waited_for_to_its_last_byte():
    request = post(b'{"name": "Ann"}', b"Content-Length: 15")
    assert request_framing(request, LIMITS) == Framing(len(request))
    assert request_framing(request[:-1], LIMITS) == Framing(None)
    assert request_framing(request + b"GET / HTTP/1.1\r\n", LIMITS) == Framing(len(request)), "pipelined"


def test_a_client_expecting_100_continue_is_told_to_send_its_body():
    request = post(b"", b"Content-Length: 15", b"Expect: 100-continue")
    assert request_framing(request, LIMITS) == Framing(None, expects_continue=True)
    assert request_framing(request + b"{", LIMITS) == Framing(None, expects_continue=False)


@given(st.binary(max_size=300), st.lists(st.integers(1, 40), max_size=8))
def test_a_chunked_body_ends_after_its_last_chunk_and_not_before(body, sizes):
    body = body[: sum(sizes)]
    sizes = [s for s in sizes if s] if body else []
    encoded = chunked(body, _fit(sizes, len(body)))
    request = post(encoded, b"Transfer-Encoding: chunked")
    assert request_framing(request, LIMITS) == Framing(len(request))
    for cut in range(len(request) - len(encoded), len(request)):
        assert request_framing(request[:cut], LIMITS).end is None, cut


def _fit(sizes: list[int], total: int) -> list[int]:
    fitted, left = [], total
    for size in sizes:
        if left == 0:
            break
        fitted.append(min(size, left))
        left -= fitted[-1]
    return fitted + ([left] if left else [])


def test_a_chunked_body_with_trailers_ends_after_them():
    request = post(b"3\r\nabc\r\n0\r\nX-Checksum: 1\r\n\r\n", b"Transfer-Encoding: chunked")
    assert request_framing(request, LIMITS) == Framing(len(request))
    assert request_framing(request[:-2], LIMITS) == Framing(None)


def test_a_body_over_the_limit_is_refused_before_it_is_read():
    assert request_framing(post(b"", b"Content-Length: 1048577"), LIMITS) == Refusal(
        413, "payload_too_large", "the body is larger than 1048576 bytes")
    refused = request_framing(post(b"100001\r\n", b"Transfer-Encoding: chunked"), LIMITS)
    assert isinstance(refused, Refusal) and refused.status == 413


def test_overlong_request_lines_and_header_blocks_are_refused_without_waiting_for_their_end():
    assert request_framing(b"GET /" + b"a" * 5000, LIMITS).status == 414
    assert request_framing(b"GET / HTTP/1.1\r\n" + b"X-A: b\r\n" * 10000, LIMITS).status == 431


def test_framing_it_cannot_judge_goes_to_the_parser_at_once():
    """The parser refuses these with the right error; waiting for more would only delay it."""
    for request in (post(b"", b"Content-Length: 5", b"Content-Length: 6"),
                    post(b"", b"Content-Length: -5"),
                    post(b"", b"Content-Length: 5", b"Transfer-Encoding: chunked"),
                    post(b"", b"Transfer-Encoding: gzip")):
        assert request_framing(request, LIMITS) == Framing(len(request)), request


def test_a_malformed_chunk_is_refused_before_the_app_reads_the_body():
    for body in (b"zz\r\n", b"-5\r\nabcde\r\n", b"3\r\nabcdef\r\n0\r\n\r\n", b"3\r\nabcX", b"1" * 2000):
        refused = request_framing(post(body, b"Transfer-Encoding: chunked"), LIMITS)
        assert isinstance(refused, Refusal) and refused.code == "malformed_body", body


def test_parser_errors_are_problems_with_stable_codes():
    assert refusal_for(http_errors.LimitRequestLine(5000, 4094)).code == "uri_too_long"
    assert refusal_for(http_errors.LimitRequestHeaders("too many")).status == 431
    assert refusal_for(http_errors.InvalidHeader("X-A")).code == "invalid_header"
    assert refusal_for(http_errors.InvalidRequestLine("GARBAGE")).code == "malformed_request"
    assert refusal_for(http_errors.InvalidResponseHeader("X")) is None, "the app's fault: a 500"
    assert refusal_for(ValueError("boom")) is None
