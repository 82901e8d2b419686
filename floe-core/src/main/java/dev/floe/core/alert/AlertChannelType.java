package dev.floe.core.alert;

import java.util.Locale;

/** How a channel's messages are shaped and sent. */
public enum AlertChannelType {
  /** A generic JSON body, signed with {@code X-Floe-Signature} when a secret is set. */
  WEBHOOK(true, true),
  SLACK(true, false),
  /** DingTalk's custom robot; its secret signs the URL with a timestamp. */
  DINGTALK(true, true),
  /** Feishu/Lark's custom bot; its secret signs the body with a timestamp. */
  FEISHU(true, true),
  WECOM(true, false),
  /** SMTP e-mail through {@code keeper.alerts.smtp} to the channel's {@code to}. */
  EMAIL(false, false);

  private final boolean takesUrl;
  private final boolean takesSecret;

  AlertChannelType(boolean takesUrl, boolean takesSecret) {
    this.takesUrl = takesUrl;
    this.takesSecret = takesSecret;
  }

  public String configName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean takesUrl() {
    return takesUrl;
  }

  public boolean takesSecret() {
    return takesSecret;
  }
}
