package dev.floe.server.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.core.Secret;
import dev.floe.core.alert.SmtpSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * E-mail through a real SMTP conversation with a minimal SMTP receiver the test runs on loopback
 * (the boundary is ours: it speaks just what RFC 5321 asks of a server for one message).
 */
class SmtpMailTest {

  @Test
  void sendsOneMessageToEveryRecipientLoggingInWithAuthPlain() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<List<String>> conversation =
          CompletableFuture.supplyAsync(() -> receive(server, "250 OK"));
      SmtpMail mail =
          new SmtpMail(
              new SmtpSettings(
                  "127.0.0.1",
                  server.getLocalPort(),
                  Optional.of("floe"),
                  Optional.of(Secret.of("pa55")),
                  "floe@example.com",
                  false));

      mail.send(
          List.of("ops@example.com", "dba@example.com"),
          "[FIRING] sync-lag orders",
          "sync orders lags 10m\n.hidden dot line\nhttps://floe.example.com/");

      List<String> lines = conversation.get(30, TimeUnit.SECONDS);
      String auth =
          Base64.getEncoder().encodeToString("\0floe\0pa55".getBytes(StandardCharsets.UTF_8));
      assertThat(lines)
          .startsWith("EHLO floe-keeper", "AUTH PLAIN " + auth, "MAIL FROM:<floe@example.com>")
          .contains("RCPT TO:<ops@example.com>", "RCPT TO:<dba@example.com>", "DATA")
          .contains("From: floe@example.com", "To: ops@example.com, dba@example.com")
          .contains(
              "Subject: =?UTF-8?B?"
                  + Base64.getEncoder()
                      .encodeToString("[FIRING] sync-lag orders".getBytes(StandardCharsets.UTF_8))
                  + "?=")
          .contains("sync orders lags 10m", "..hidden dot line", "https://floe.example.com/")
          .endsWith(".", "QUIT");
    }
  }

  @Test
  void aRefusingServerIsAnErrorNamingItsAnswerAndNoSecret() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture.supplyAsync(() -> receive(server, "535 5.7.8 bad credentials"));
      SmtpMail mail =
          new SmtpMail(
              new SmtpSettings(
                  "127.0.0.1",
                  server.getLocalPort(),
                  Optional.of("floe"),
                  Optional.of(Secret.of("pa55")),
                  "floe@example.com",
                  false));

      assertThatThrownBy(() -> mail.send(List.of("ops@example.com"), "s", "t"))
          .isInstanceOf(IOException.class)
          .hasMessage("the server answered '535 5.7.8 bad credentials' to AUTH PLAIN");
    }
  }

  /**
   * Takes one connection: greets, answers EHLO, answers AUTH with {@code authAnswer}, then 250 to
   * each command, 354 to DATA and 221 to QUIT; returns every line the client sent.
   */
  private static List<String> receive(ServerSocket server, String authAnswer) {
    List<String> lines = new ArrayList<>();
    try (Socket socket = server.accept()) {
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      OutputStream out = socket.getOutputStream();
      reply(out, "220 test.local ESMTP");
      boolean data = false;
      String line;
      while ((line = in.readLine()) != null) {
        lines.add(line);
        if (data) {
          if (line.equals(".")) {
            data = false;
            reply(out, "250 queued");
          }
          continue;
        }
        if (line.startsWith("EHLO")) {
          reply(out, "250-test.local\r\n250 AUTH PLAIN");
        } else if (line.startsWith("AUTH")) {
          reply(out, authAnswer.startsWith("250") ? "235 2.7.0 accepted" : authAnswer);
        } else if (line.equals("DATA")) {
          data = true;
          reply(out, "354 go on");
        } else if (line.equals("QUIT")) {
          reply(out, "221 bye");
          break;
        } else {
          reply(out, "250 OK");
        }
      }
    } catch (IOException e) {
      lines.add("receiver failed: " + e.getMessage());
    }
    return lines;
  }

  private static void reply(OutputStream out, String text) throws IOException {
    out.write((text + "\r\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
