// Episode page: familiarization playlist, the two test videos kept in sync, surprise curves
// with a cursor that follows playback, and the design facts fetched only on request.
"use strict";

function playlist(box) {
  const sources = JSON.parse(box.dataset.sources);
  const video = box.querySelector("video");
  const caption = box.querySelector(".caption");
  const buttons = box.querySelectorAll(".buttons button");
  let index = 0;
  function show(k, play) {
    index = k;
    video.src = sources[k].src || "";
    caption.textContent = sources[k].label;
    buttons.forEach((b, j) => b.classList.toggle("current", j === k));
    if (play) video.play().catch(() => {});
  }
  buttons.forEach((b) => b.addEventListener("click", () => show(Number(b.dataset.index), true)));
  video.addEventListener("ended", () => { if (index + 1 < sources.length) show(index + 1, true); });
  if (sources.length) show(0, false);
}

function syncedPair() {
  const videos = Array.from(document.querySelectorAll("video.test"));
  if (!videos.length) return;
  const play = document.getElementById("play");
  const seek = document.getElementById("seek");
  const clock = document.getElementById("clock");
  const longest = () => Math.max(...videos.map((v) => v.duration || 0));
  function moveCursors() {
    document.querySelectorAll("#curves svg").forEach((svg, k) => {
      const video = videos[Math.min(k, videos.length - 1)];
      const line = svg.querySelector("line.cursor");
      if (!line || !video.duration) return;
      const x = Number(line.dataset.left) + Number(line.dataset.width) * Math.min(1, video.currentTime / video.duration);
      line.setAttribute("x1", x); line.setAttribute("x2", x);
    });
  }
  function tick() {
    const lead = videos[0];
    videos.slice(1).forEach((v) => {
      if (!v.ended && Math.abs(v.currentTime - lead.currentTime) > 0.06 && lead.currentTime < v.duration) v.currentTime = lead.currentTime;
    });
    const t = Math.max(...videos.map((v) => v.currentTime));
    clock.textContent = t.toFixed(2) + " s";
    if (longest()) seek.value = Math.round(1000 * t / longest());
    moveCursors();
    if (videos.some((v) => !v.paused && !v.ended)) requestAnimationFrame(tick);
    else play.textContent = "play both";
  }
  play.addEventListener("click", () => {
    if (videos.some((v) => !v.paused && !v.ended)) { videos.forEach((v) => v.pause()); play.textContent = "play both"; return; }
    if (videos.every((v) => v.ended)) videos.forEach((v) => { v.currentTime = 0; });
    Promise.all(videos.map((v) => v.play())).catch(() => {});
    play.textContent = "pause";
    requestAnimationFrame(tick);
  });
  seek.addEventListener("input", () => {
    const t = longest() * Number(seek.value) / 1000;
    videos.forEach((v) => { v.currentTime = Math.min(t, v.duration || 0); });
    clock.textContent = t.toFixed(2) + " s";
    moveCursors();
  });
  videos.forEach((v) => v.addEventListener("seeked", moveCursors));
  return moveCursors;
}

document.querySelectorAll(".playlist").forEach(playlist);
const moveCursors = syncedPair();
const curves = document.getElementById("curves");
if (curves) {
  fetch(curves.dataset.src).then((r) => r.text()).then((html) => {
    curves.innerHTML = html;
    curves.dataset.loaded = "1";
    if (moveCursors) moveCursors();
  });
}
const metaButton = document.getElementById("show-meta");
metaButton.addEventListener("click", () => {
  const pre = document.getElementById("meta");
  fetch(metaButton.dataset.src).then((r) => r.json()).then((facts) => {
    pre.textContent = Object.keys(facts).length ? JSON.stringify(facts, null, 2) : "no design facts for this episode";
    pre.hidden = false;
  });
});
