package io.pekquitto.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/** Copies bytes from one socket to another on a daemon thread, for the tests' proxies; both close when either ends. */
public final class SocketPipe {
    private SocketPipe() {}

    /** Copies what {@code from} reads to {@code to} until either closes, then closes both and runs {@code ended}. */
    public static void start(Socket from, Socket to, Runnable ended, String name) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        var thread = new Thread(() -> {
            var buffer = new byte[64 * 1024];
            try {
                for (int read; (read = in.read(buffer)) >= 0; ) out.write(buffer, 0, read);
            } catch (IOException e) {
                // either side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                ended.run();
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
    }

    public static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
