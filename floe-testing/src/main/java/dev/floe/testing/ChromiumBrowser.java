package dev.floe.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium driven through its chromedriver by Selenium, for tests of web pages.
 * Installs {@code chromium} and {@code chromium-driver} with the project's {@code
 * install-chromium.sh} when either is missing (apt-get, once per machine). Runs with {@code
 * --no-sandbox} (tests run as root) in a temporary profile that {@link #close()} deletes.
 */
public final class ChromiumBrowser implements AutoCloseable {

  private static final List<Path> DIRECTORIES =
      List.of(Path.of("/usr/bin"), Path.of("/usr/local/bin"));

  private final ChromeDriver driver;
  private final Path profile;

  private ChromiumBrowser(ChromeDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  /** Starts a headless browser whose window is {@code width} x {@code height} CSS pixels. */
  public static ChromiumBrowser start(int width, int height) {
    Path chromium = locate("chromium").orElse(null);
    Path chromedriver = locate("chromedriver").orElse(null);
    if (chromium == null || chromedriver == null) {
      ServerProcesses.runInstallScript("install-chromium.sh", "chromium chromium-driver");
      chromium = locate("chromium").orElseThrow(() -> missing("chromium"));
      chromedriver = locate("chromedriver").orElseThrow(() -> missing("chromedriver"));
    }
    Path profile;
    try {
      profile = Files.createTempDirectory("floe-chromium-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a browser profile directory", e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--hide-scrollbars",
        "--user-data-dir=" + profile,
        "--window-size=" + width + "," + height);
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(chromedriver.toString()))
            .usingAnyFreePort()
            .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
    ChromiumBrowser browser = new ChromiumBrowser(driver, profile);
    browser.resize(width, height);
    return browser;
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** Sets the page's viewport to {@code width} x {@code height} CSS pixels. */
  public void resize(int width, int height) {
    driver.manage().window().setSize(new Dimension(width, height));
    // the window's outer size includes nothing in headless mode, but be exact about the viewport
    Object inner = driver.executeScript("return [window.innerWidth, window.innerHeight];");
    if (inner instanceof List<?> size && size.size() == 2) {
      long innerWidth = ((Number) size.get(0)).longValue();
      long innerHeight = ((Number) size.get(1)).longValue();
      if (innerWidth != width || innerHeight != height) {
        driver
            .manage()
            .window()
            .setSize(
                new Dimension((int) (2L * width - innerWidth), (int) (2L * height - innerHeight)));
      }
    }
  }

  /** Saves a PNG of the viewport. */
  public Path screenshot(Path file) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.write(file, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot save the screenshot " + file, e);
    }
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      ServerProcesses.deleteRecursively(profile);
    }
  }

  private static Optional<Path> locate(String name) {
    return DIRECTORIES.stream()
        .map(directory -> directory.resolve(name))
        .filter(Files::isExecutable)
        .findFirst();
  }

  private static IllegalStateException missing(String name) {
    return new IllegalStateException(
        name
            + " is still missing after running install-chromium.sh; install chromium and"
            + " chromium-driver with apt-get and retry");
  }
}
