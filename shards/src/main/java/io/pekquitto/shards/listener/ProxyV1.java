package io.pekquitto.shards.listener;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * The v1 line of the PROXY protocol (proxy-protocol.txt 2.1), once read to its LF:
 * {@code PROXY TCP4|TCP6 source destination source-port destination-port\r\n}, single spaces, numeric
 * addresses of the named family and decimal ports; or {@code PROXY UNKNOWN}, whose rest is ignored and
 * which leaves the socket's own address.
 */
final class ProxyV1 {
    private ProxyV1() {}

    static ProxyHeader parse(String line) throws ProxyHeaderException {
        if (!line.endsWith("\r\n") || line.indexOf('\r') != line.length() - 2) {
            throw new ProxyHeaderException("v1 line not ended by CRLF");
        }
        var fields = line.substring(0, line.length() - 2).split(" ", -1);
        if (fields.length >= 2 && fields[1].equals("UNKNOWN")) return new ProxyHeader(1, Optional.empty());
        if (fields.length != 6) throw new ProxyHeaderException("v1 line of " + fields.length + " fields, not 6");
        boolean v4 = switch (fields[1]) {
            case "TCP4" -> true;
            case "TCP6" -> false;
            default -> throw new ProxyHeaderException("v1 protocol is neither TCP4, TCP6 nor UNKNOWN");
        };
        var source = v4 ? ipv4(fields[2]) : ipv6(fields[2]);
        if (v4) {
            ipv4(fields[3]);
        } else {
            ipv6(fields[3]);  // the destination is checked, not used
        }
        int sourcePort = port(fields[4]);
        port(fields[5]);
        return new ProxyHeader(1, Optional.of(new InetSocketAddress(source, sourcePort)));
    }

    /** Four decimal octets, 0 to 255. */
    private static InetAddress ipv4(String text) throws ProxyHeaderException {
        var octets = text.split("\\.", -1);
        if (octets.length != 4) throw new ProxyHeaderException("v1 TCP4 address is not a.b.c.d");
        var bytes = new byte[4];
        for (int i = 0; i < 4; i++) bytes[i] = (byte) decimal(octets[i], 3, 255, "v1 TCP4 address octet");
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);  // four bytes are always an address
        }
    }

    /**
     * An IPv6 literal. Only hex digits, ':' and '.' (an IPv4 tail), and a ':' in it: the JDK then parses
     * it as a literal and never asks a name server.
     */
    private static InetAddress ipv6(String text) throws ProxyHeaderException {
        boolean literal = !text.isEmpty() && text.indexOf(':') >= 0
                && (Character.digit(text.charAt(0), 16) >= 0 || text.charAt(0) == ':')
                && text.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.');
        if (!literal) throw new ProxyHeaderException("v1 TCP6 address is not an IPv6 literal");
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new ProxyHeaderException("v1 TCP6 address is not an IPv6 literal");
        }
    }

    private static int port(String text) throws ProxyHeaderException {
        return decimal(text, 5, 65_535, "v1 port");
    }

    private static int decimal(String text, int maxDigits, int max, String what) throws ProxyHeaderException {
        if (text.isEmpty() || text.length() > maxDigits || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new ProxyHeaderException(what + " is not a decimal number");
        }
        int value = Integer.parseInt(text);
        if (value > max) throw new ProxyHeaderException(what + " " + value + " is above " + max);
        return value;
    }
}
