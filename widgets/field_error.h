#pragma once
// The error line a dialog shows under a field it refuses (a price table that does not parse, a
// trace that does not load, a wait target it cannot read): red, selectable so it can be copied,
// hidden while there is nothing to say.
#include <QLabel>
#include <QString>

namespace tessera::widgets {

inline QLabel* fieldErrorLabel(const char* objectName) {
  auto* l = new QLabel;
  l->setObjectName(QString::fromLatin1(objectName));
  l->setWordWrap(true);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setStyleSheet(QStringLiteral("color: #c0392b;"));
  l->hide();
  return l;
}

// An empty text hides the line.
inline void showFieldError(QLabel* label, const QString& text) {
  label->setText(text);
  label->setVisible(!text.isEmpty());
}

}  // namespace tessera::widgets
