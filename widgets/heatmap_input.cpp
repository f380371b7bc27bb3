// The topology heatmap's input (see heatmap_widget.h): tooltips, wheel and pinch zoom, mouse
// selection and panning, keys. Drag-and-drop is in heatmap_drag.cpp.
#include <QApplication>
#include <QGestureEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QNativeGestureEvent>
#include <QPinchGesture>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

#include "heatmap_widget.h"

namespace tessera::widgets {

bool HeatmapWidget::event(QEvent* e) {
  switch (e->type()) {
    case QEvent::ToolTip: {
      auto* help = static_cast<QHelpEvent*>(e);
      const QString text = toolTipAt(help->pos());
      if (text.isEmpty())
        QToolTip::hideText();
      else
        QToolTip::showText(help->globalPos(), text, this);
      return true;
    }
    case QEvent::NativeGesture:
      if (nativeGestureEvent(static_cast<QNativeGestureEvent*>(e))) return true;
      break;
    case QEvent::Gesture:
      if (gestureEvent(static_cast<QGestureEvent*>(e))) return true;
      break;
    // The backdrop's names and colors (HeatmapWidget::Backdrop) follow these.
    case QEvent::FontChange:
    case QEvent::PaletteChange:
    case QEvent::StyleChange:
    case QEvent::LanguageChange:
      backdrop_.image = QImage();
      break;
    default:
      break;
  }
  return QWidget::event(e);
}

// A trackpad pinch (macOS, and libinput touchpads on Wayland and X11) arrives as native zoom
// steps whose value is the change of magnification since the previous step: 0.1 is 10 % larger.
bool HeatmapWidget::nativeGestureEvent(QNativeGestureEvent* e) {
  if (e->gestureType() != Qt::ZoomNativeGesture) return false;
  // -1 or less would zero or flip the scale; no trackpad sends it, a broken driver might.
  if (e->value() > -1) zoomAt(e->position(), 1 + e->value());
  e->accept();
  return true;
}

// A touch screen pinch: the scale factor is relative to the previous event, and the fingers'
// midpoint (in screen coordinates) moving pans the map along, as maps on phones do.
bool HeatmapWidget::gestureEvent(QGestureEvent* e) {
  auto* pinch = static_cast<QPinchGesture*>(e->gesture(Qt::PinchGesture));
  if (!pinch) return false;
  const QPinchGesture::ChangeFlags changed = pinch->changeFlags();
  const QPointF center = mapFromGlobal(pinch->centerPoint());
  if ((changed & QPinchGesture::CenterPointChanged) && pinch->state() != Qt::GestureStarted)
    panBy(center - mapFromGlobal(pinch->lastCenterPoint()));
  if ((changed & QPinchGesture::ScaleFactorChanged) && pinch->scaleFactor() > 0)
    zoomAt(center, pinch->scaleFactor());
  e->accept(pinch);
  return true;
}

void HeatmapWidget::wheelEvent(QWheelEvent* e) {
  const int delta = e->angleDelta().y();
  if (delta == 0) return;
  // One notch (120) is a factor of 2^(1/4): four notches double the zoom.
  zoomAt(e->position(), std::pow(2.0, delta / 480.0));
  e->accept();
}

void HeatmapWidget::mousePressEvent(QMouseEvent* e) {
  pressPos_ = lastPos_ = e->position();
  if (e->button() == Qt::MiddleButton || (e->button() == Qt::LeftButton && spaceHeld_)) {
    gesture_ = Gesture::Pan;
    setCursor(Qt::ClosedHandCursor);
  } else if (e->button() == Qt::LeftButton) {
    gesture_ = Gesture::Press;
  }
  e->accept();
}

void HeatmapWidget::mouseMoveEvent(QMouseEvent* e) {
  const QPointF pos = e->position();
  switch (gesture_) {
    case Gesture::Pan:
      panBy(pos - lastPos_);
      break;
    case Gesture::Press:
      if ((pos - pressPos_).manhattanLength() < QApplication::startDragDistance()) break;
      gesture_ = Gesture::RubberBand;
      [[fallthrough]];
    case Gesture::RubberBand:
      band_ = QRectF(pressPos_, pos).normalized();
      update();
      break;
    case Gesture::None: {
      const auto hit = layout_.hitTest(mapToScene(pos));
      setHover(hit ? hit->tile : -1, hit ? hit->instance : -1);
      break;
    }
  }
  lastPos_ = pos;
}

void HeatmapWidget::mouseReleaseEvent(QMouseEvent* e) {
  const Gesture g = gesture_;
  gesture_ = Gesture::None;
  if (g == Gesture::Pan) setCursor(spaceHeld_ ? Qt::OpenHandCursor : Qt::ArrowCursor);
  if (g == Gesture::Press && e->button() == Qt::LeftButton) clickAt(e->position(), e->modifiers());
  if (g == Gesture::RubberBand) finishRubberBand(e->modifiers());
  e->accept();
}

void HeatmapWidget::leaveEvent(QEvent* e) {
  setHover(-1, -1);
  QWidget::leaveEvent(e);
}

void HeatmapWidget::setHover(int tile, int instance) {
  if (tile == hoverTile_ && instance == hoverInstance_) return;
  hoverTile_ = tile;
  hoverInstance_ = instance;
  update();
}

void HeatmapWidget::keyPressEvent(QKeyEvent* e) {
  if (cursorKey(e)) return;
  const QPointF center(width() / 2.0, height() / 2.0);
  switch (e->key()) {
    case Qt::Key_Space:
      if (!e->isAutoRepeat()) {
        spaceHeld_ = true;
        setCursor(Qt::OpenHandCursor);
      }
      return;
    case Qt::Key_Home:
      fitToView();
      return;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoomAt(center, 1.25);
      return;
    case Qt::Key_Minus:
      zoomAt(center, 0.8);
      return;
    case Qt::Key_Escape:
      if (gesture_ == Gesture::RubberBand) {
        gesture_ = Gesture::None;
        update();
      } else {
        clearSelection();
      }
      return;
    default:
      QWidget::keyPressEvent(e);
  }
}

void HeatmapWidget::keyReleaseEvent(QKeyEvent* e) {
  if (e->key() == Qt::Key_Space && !e->isAutoRepeat()) {
    spaceHeld_ = false;
    if (gesture_ != Gesture::Pan) unsetCursor();
    return;
  }
  QWidget::keyReleaseEvent(e);
}

}  // namespace tessera::widgets
