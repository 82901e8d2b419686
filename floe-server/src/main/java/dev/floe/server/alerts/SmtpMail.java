package dev.floe.server.alerts;

import static java.util.Objects.requireNonNull;

import dev.floe.core.alert.SmtpSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Sends alert mail over SMTP (RFC 5321): EHLO, STARTTLS when {@code starttls} is set (then
 * required), AUTH PLAIN when a user is set, one message to every recipient. Plain text, UTF-8. One
 * connection per message: alerts are rare, and a connection kept open would break unseen.
 */
public final class SmtpMail implements AlertDelivery.Mail {

  private static final int TIMEOUT_MILLIS = 30_000;

  private final SmtpSettings settings;

  public SmtpMail(SmtpSettings settings) {
    this.settings = requireNonNull(settings, "settings is null");
  }

  @Override
  public void send(List<String> to, String subject, String text) throws IOException {
    try (Socket plain = new Socket()) {
      plain.connect(new InetSocketAddress(settings.host(), settings.port()), TIMEOUT_MILLIS);
      plain.setSoTimeout(TIMEOUT_MILLIS);
      Session session = new Session(plain);
      session.expect(220);
      session.command("EHLO floe-keeper", 250);
      if (settings.starttls()) {
        session.command("STARTTLS", 220);
        SSLSocket secure =
            (SSLSocket)
                ((SSLSocketFactory) SSLSocketFactory.getDefault())
                    .createSocket(plain, settings.host(), settings.port(), true);
        secure.startHandshake();
        session = new Session(secure);
        session.command("EHLO floe-keeper", 250);
      }
      if (settings.user().isPresent()) {
        String credentials =
            "\0"
                + settings.user().get()
                + "\0"
                + settings.password().map(secret -> secret.reveal()).orElse("");
        session.command(
            "AUTH PLAIN "
                + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)),
            235,
            "AUTH PLAIN");
      }
      session.command("MAIL FROM:<" + settings.from() + ">", 250);
      for (String recipient : to) {
        session.command("RCPT TO:<" + recipient + ">", 250);
      }
      session.command("DATA", 354);
      StringBuilder message = new StringBuilder();
      message
          .append("From: ")
          .append(settings.from())
          .append("\r\nTo: ")
          .append(String.join(", ", to))
          .append("\r\nSubject: =?UTF-8?B?")
          .append(Base64.getEncoder().encodeToString(subject.getBytes(StandardCharsets.UTF_8)))
          .append("?=\r\nDate: ")
          .append(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now()))
          .append("\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8")
          .append("\r\nContent-Transfer-Encoding: 8bit\r\n\r\n");
      for (String line : text.split("\r?\n", -1)) {
        // a line of one dot would end the message (RFC 5321 4.5.2)
        message.append(line.startsWith(".") ? "." + line : line).append("\r\n");
      }
      message.append(".");
      session.command(message.toString(), 250, "the message");
      session.command("QUIT", 221);
    }
  }

  /** Commands and replies on one socket. */
  private static final class Session {
    private final BufferedReader in;
    private final OutputStream out;

    Session(Socket socket) throws IOException {
      this.in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      this.out = socket.getOutputStream();
    }

    void command(String line, int expected) throws IOException {
      command(line, expected, line.split(" ")[0]);
    }

    /** Sends a command and checks the reply; {@code shown} names it in errors (never a secret). */
    void command(String line, int expected, String shown) throws IOException {
      out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      expect(expected, shown);
    }

    void expect(int expected) throws IOException {
      expect(expected, "the greeting");
    }

    private void expect(int expected, String after) throws IOException {
      String reply;
      do {
        reply = in.readLine();
        if (reply == null) {
          throw new IOException("the server closed the connection after " + after);
        }
      } while (reply.length() > 3 && reply.charAt(3) == '-');
      if (!reply.startsWith(Integer.toString(expected))) {
        throw new IOException("the server answered '" + reply + "' to " + after);
      }
    }
  }
}
