"""An FTP server whose 150 reply lies: it announces ``announced`` bytes, sends ``sent``,
closes the data connection and says 226 (issue 14 item 5). Loopback, port 0, passive only."""

from __future__ import annotations

import asyncio

from .loopback import LoopbackServer


class ShortFTPServer(LoopbackServer):
    def __init__(self, *, announced: int = 1_000_000, sent: int = 1000) -> None:
        self.announced = announced
        self.sent = sent

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data_server: asyncio.Server | None = None
        accepted: asyncio.Future[asyncio.StreamWriter] = asyncio.get_running_loop().create_future()

        async def on_data(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            if not accepted.done():
                accepted.set_result(w)

        def say(line: str) -> None:
            writer.write(line.encode() + b"\r\n")

        try:
            say("220 adversary")
            while True:
                raw = await asyncio.wait_for(reader.readline(), 10)
                if not raw:
                    return
                verb = raw.decode("latin-1").strip().split(" ", 1)[0].upper()
                if verb == "USER":
                    say("331 password")
                elif verb == "PASS":
                    say("230 in")
                elif verb == "EPSV":
                    data_server = await asyncio.start_server(on_data, "127.0.0.1", 0)
                    port = data_server.sockets[0].getsockname()[1]
                    say(f"229 Entering Extended Passive Mode (|||{port}|)")
                elif verb in ("RETR", "NLST", "LIST"):
                    say(f"150 Opening BINARY mode data connection ({self.announced} bytes)")
                    await writer.drain()
                    dw = await asyncio.wait_for(accepted, 10)
                    dw.write(b"x" * self.sent)
                    await dw.drain()
                    dw.close()
                    say("226 Transfer complete")
                elif verb == "QUIT":
                    say("221 bye")
                    await writer.drain()
                    return
                else:
                    say("200 ok")
                await writer.drain()
        except (OSError, TimeoutError, asyncio.CancelledError):
            pass
        finally:
            if data_server is not None:
                data_server.close()
            await self.end_connection(writer)
